"""The saved copy of the vector matrix (engines/sqlite/vecfile.py): a matrix that read many rows from the
table saves itself beside the file; a new one maps the copy, reads only the rows stored since, and answers
as a load from the table would. A purge deletes every copy; a torn copy, or one beside a database that
was replaced, is refused."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, PurgeRequest
from tinymemory.engines.sqlite import SqliteEngine, copies, vecfile, vectors
from tinymemory.engines.sqlite.vectors import VectorMatrix

EMB = HashEmbedder()
QUERIES = ["river stone", "blue lantern market", "old harbour bell", "stone 7"]


@pytest.fixture(autouse=True)
def small_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SAVE_MIN_ROWS", 10)
    monkeypatch.setattr(copies, "MIN_ROWS", 1 << 40)  # the writer's copies: see `writer_copies`


@pytest.fixture
def writer_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing process keeps a copy of a file of at least 10 vectors, at close past a tail of 5."""
    monkeypatch.setattr(copies, "MIN_ROWS", 10)
    monkeypatch.setattr(copies, "CLOSE_MIN_TAIL", 5)


async def fill(path: Path, texts: list[str]) -> list[str]:
    async with SqliteEngine(path, embedder=EMB) as engine:
        return [s.id for s in await engine.store_many([note(t) for t in texts])]


def texts(prefix: str, start: int, count: int) -> list[str]:
    words = ["river", "stone", "blue", "lantern", "market", "old", "harbour", "bell"]
    return [f"{prefix} {words[i % 8]} {words[(i * 3) % 8]} {i}" for i in range(start, start + count)]


async def answers(engine: SqliteEngine) -> list[list[tuple[str, float]]]:
    out = []
    for q in QUERIES:
        got = await engine.fetch(FetchRequest(q, mode=FetchMode.SEMANTIC, limit=8))
        out.append([(h.item.id, h.score) for h in got.hits])
    return out


def matrix_of(engine: SqliteEngine) -> VectorMatrix:
    matrix = engine.storage._matrix
    assert matrix is not None
    return matrix


async def read_and_save(path: Path) -> list[list[tuple[str, float]]]:
    """Answers from a fresh engine, after its matrix's save (if it makes one) has finished."""
    async with SqliteEngine(path, embedder=EMB) as engine:
        got = await answers(engine)
        saver = matrix_of(engine).saver
        if saver is not None:
            saver.join(30)
    return got


async def from_table(path: Path) -> list[list[tuple[str, float]]]:
    """The answers of a matrix read from the table alone: every copy moved away meanwhile."""
    (path.parent / "aside").mkdir(exist_ok=True)
    aside = [(p, path.parent / "aside" / p.name) for p in vecfile.files(str(path))]
    for p, q in aside:
        p.rename(q)
    try:
        async with SqliteEngine(path, embedder=EMB) as engine:
            got = await answers(engine)
            assert matrix_of(engine).mapped_rows == 0
            saver = matrix_of(engine).saver
            if saver is not None:
                saver.join(30)
    finally:
        for p in vecfile.files(str(path)):
            p.unlink()
        for p, q in aside:
            q.rename(p)
    return got


async def test_a_new_matrix_maps_the_saved_copy_and_answers_as_the_table_does(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    assert vecfile.files(str(path)) == []  # stores alone write no copy
    first = await read_and_save(path)
    (saved,) = vecfile.files(str(path))
    assert saved.name.endswith("-e0")
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == first
        assert matrix_of(engine).mapped_rows == 40
        assert matrix_of(engine).size == 40


def test_a_populated_map_holds_the_same_rows_as_a_lazy_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((50, 8)).astype(np.float32)
    ids = np.arange(3, 53, dtype=np.int64)
    path = tmp_path / "m.db.vectors-x-8-e0"
    vecfile.save(path, [(ids, rows)], "x", 8, 0)
    lazy = vecfile.load(path, "x", 8, 0)
    full = vecfile.load(path, "x", 8, 0, populate=True)
    assert lazy is not None and full is not None
    np.testing.assert_array_equal(full.rows, rows)
    np.testing.assert_array_equal(full.rowids, lazy.rowids)
    assert not full.rows.flags.writeable  # read-only, as the lazy map is


async def test_a_matrix_loaded_from_the_table_holds_the_blobs_decoded_alone(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    matrix = VectorMatrix(EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        matrix.refresh(conn)
        blobs = [b for (b,) in conn.execute("SELECT vec FROM vectors ORDER BY item_rowid")]
    if matrix.saver is not None:
        matrix.saver.join(30)
    into = np.full((42, EMB.dim), 7.0, dtype=np.float32)
    got = vectors.from_blobs(blobs, EMB.dim, out=into[1:41])
    assert got.base is into or got is into[1:41] or np.shares_memory(got, into)
    assert (into[0] == 7.0).all() and (into[41] == 7.0).all()
    np.testing.assert_array_equal(into[1:41], vectors.from_blobs(blobs, EMB.dim))
    assert matrix.size == 40
    assert np.array_equal(matrix._view().mat[:40].view(np.uint32), into[1:41].view(np.uint32))


async def test_rows_stored_after_the_copy_are_read_from_the_table(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    await fill(path, texts("later", 40, 6))  # fewer than SAVE_MIN_ROWS: the copy stays as it was
    async with SqliteEngine(path, embedder=EMB) as engine:
        await answers(engine)
        assert matrix_of(engine).mapped_rows == 40 and matrix_of(engine).size == 46
        assert matrix_of(engine).saver is None
        await fill(path, texts("newest", 46, 3))  # and rows stored while it is open
        with_newest = await answers(engine)
        assert matrix_of(engine).size == 49
    assert with_newest == await from_table(path)


async def test_filter_first_reads_score_mapped_and_table_rows_alike(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    await fill(path, texts("later", 40, 6))
    async with SqliteEngine(path, embedder=EMB) as engine:
        await answers(engine)
        matrix = matrix_of(engine)
        query = EMB.embed_query("river stone")
        every = matrix.rowids
        rowids, scores = matrix.scores_for(query, every[::3].copy())
        _, all_scores = matrix.scored(query)
        np.testing.assert_array_equal(rowids, every[::3])
        np.testing.assert_array_equal(scores, all_scores[::3])


async def test_a_purge_deletes_every_copy_and_the_next_holds_no_purged_vector(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    (old,) = vecfile.files(str(path))
    mapped = vecfile.load(old, EMB.name, EMB.dim, 0)
    assert mapped is not None
    with sqlite3.connect(path) as conn:
        rowid = int(conn.execute("SELECT rowid FROM items WHERE id = ?", (ids[0],)).fetchone()[0])
    purged_bytes = mapped.rows[int(np.searchsorted(mapped.rowids, rowid))].tobytes()
    del mapped
    async with SqliteEngine(path, embedder=EMB) as engine:
        await answers(engine)
        await engine.forget(ForgetRequest(ids=(ids[0],)))
        assert (await engine.purge(PurgeRequest())).purged == 1
        assert vecfile.files(str(path)) == []  # the copy held the purged vector
        after = await answers(engine)  # reloads from the table, then saves a copy of the new epoch
        saver = matrix_of(engine).saver
        assert saver is not None
        saver.join(30)
    (new,) = vecfile.files(str(path))
    assert new.name.endswith("-e1")
    assert purged_bytes not in new.read_bytes()
    assert ids[0] not in {i for hits in after for i, _ in hits}
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == after
        assert matrix_of(engine).mapped_rows == 39


async def test_a_copy_beside_a_replaced_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    (saved,) = vecfile.files(str(path))
    kept = saved.read_bytes()
    for p in tmp_path.iterdir():
        if p.is_file():
            p.unlink()
    await fill(path, texts("other words entirely", 100, 40))  # the same rowids and epoch, new vectors
    saved.write_bytes(kept)
    want = await from_table(path)
    saved.write_bytes(kept)
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == want
        assert matrix_of(engine).mapped_rows == 0


@pytest.mark.parametrize("damage", ["truncated", "header"])
async def test_a_damaged_copy_is_refused_and_replaced(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    want = await read_and_save(path)
    (saved,) = vecfile.files(str(path))
    data = saved.read_bytes()
    if damage == "truncated":
        saved.write_bytes(data[: len(data) - 100])
    else:
        saved.write_bytes(data[:20] + bytes([data[20] ^ 0xFF]) + data[21:])
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == want
        assert matrix_of(engine).mapped_rows == 0
        saver = matrix_of(engine).saver
        assert saver is not None  # it read every row from the table: it saves a whole copy again
        saver.join(30)
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == want
        assert matrix_of(engine).mapped_rows == 40


async def test_a_reembed_reads_the_table_and_retires_the_old_copy(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    (old,) = vecfile.files(str(path))
    async with SqliteEngine(path, embedder=EMB) as engine:
        with sqlite3.connect(path) as conn:  # what a re-embed does to the file: the epoch moves
            vectors.bump_epoch(conn)
        await answers(engine)
        saver = matrix_of(engine).saver
        assert matrix_of(engine).mapped_rows == 0 and saver is not None
        saver.join(30)
    (new,) = vecfile.files(str(path))
    assert new.name.endswith("-e1") and not old.exists()


async def test_an_in_memory_store_saves_nothing(tmp_path: Path) -> None:
    async with SqliteEngine(":memory:", embedder=EMB) as engine:
        await engine.store_many([note(t) for t in texts("note", 0, 40)])
        await answers(engine)
        assert matrix_of(engine).saver is None


CHILD = """
import asyncio, sys
sys.path.insert(0, sys.argv[2])
from test_sqlite_support import HashEmbedder
from tinymemory.api import FetchMode, FetchRequest
from tinymemory.engines.sqlite import SqliteEngine, vectors

vectors.SAVE_MIN_ROWS = 10

async def main():
    engine = SqliteEngine(sys.argv[1], embedder=HashEmbedder(), background_index=False)
    await engine.fetch(FetchRequest("river stone", mode=FetchMode.SEMANTIC, limit=5))
    print("saving" if engine.storage._matrix.saver is not None else "no save", flush=True)

asyncio.run(main())
"""


def test_a_process_that_returns_while_its_copy_is_written_exits_cleanly_with_the_copy_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    asyncio.run(fill(path, texts("note", 0, 400)))
    here = str(Path(__file__).parent)
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), here], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "saving" in proc.stdout, proc.stdout
    (saved,) = vecfile.files(str(path))
    mapped = vecfile.load(saved, EMB.name, EMB.dim, 0)
    assert mapped is not None and len(mapped.rowids) == 400


async def test_a_growing_matrix_saves_again_after_a_tenth_more_rows(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 200))
    await read_and_save(path)
    assert len(vecfile.files(str(path))) == 1
    await fill(path, texts("later", 200, 15))  # past SAVE_MIN_ROWS, short of a tenth of 215 rows
    async with SqliteEngine(path, embedder=EMB) as engine:
        await answers(engine)
        assert matrix_of(engine).saver is None
        await fill(path, texts("newest", 215, 10))  # 25 rows read from the table: past a tenth of 225
        want = await answers(engine)
        saver = matrix_of(engine).saver
        assert saver is not None
        saver.join(30)
    async with SqliteEngine(path, embedder=EMB) as engine:
        assert await answers(engine) == want
        assert matrix_of(engine).mapped_rows == 225


async def test_rows_past_a_mapped_copy_take_memory_for_themselves_only(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 2_500))
    await read_and_save(path)
    await fill(path, texts("later", 2_500, 5))
    async with SqliteEngine(path, embedder=EMB) as engine:
        await answers(engine)
        matrix = matrix_of(engine)
        assert matrix.mapped_rows == 2_500 and matrix.size == 2_505
        assert matrix.nbytes < matrix.mapped_rows * EMB.dim * 4  # the mapped rows are the file's pages


async def test_a_save_removes_what_a_process_that_died_while_saving_left(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    target = vecfile.path_for(str(path), EMB.name, EMB.dim, 0)
    orphan = target.with_name(f"{target.name}.{int(dead.stdout)}.abc123.tmp")
    orphan.write_bytes(b"half a copy")
    await read_and_save(path)
    assert not orphan.exists()
    assert vecfile.files(str(path)) == [target]


async def test_the_graph_plan_rescores_from_the_copy_and_answers_as_the_exact_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("usearch")
    from test_sqlite_ann import SeededEmbedder
    from tinymemory.engines.sqlite import ann, search

    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 200)
    seeded = SeededEmbedder()
    path = tmp_path / "m.db"

    async def store(batch: list[str]) -> None:
        async with SqliteEngine(path, embedder=seeded) as engine:
            await engine.store_many([note(t) for t in batch])

    async def exact() -> list[list[tuple[str, float]]]:
        async with SqliteEngine(path, embedder=seeded) as engine:
            engine.storage._graphs = None  # the exact scan only
            got = await answers(engine)
            assert engine.last_semantic_plan is search.Plan.SCAN
            saver = engine.storage._matrix.saver if engine.storage._matrix else None
            if saver is not None:
                saver.join(30)
            return got

    await store(texts("note", 0, 600))
    await exact()  # its scan saves the matrix copy
    await store(texts("later", 600, 7))  # a tail past the copy, then past the graph below
    async with SqliteEngine(path, embedder=seeded) as engine:
        await answers(engine)  # starts the build
        graphs = engine.storage._graphs
        assert graphs is not None and graphs.wait(60)
        await store(texts("newest", 607, 3))
        got = await answers(engine)
        assert engine.last_semantic_plan is search.Plan.HNSW
        assert graphs._copy is not None and len(graphs._copy.rowids) == 600
    assert got == await exact()


async def test_a_process_that_keeps_scanning_moves_the_mapped_rows_into_memory(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    want = await read_and_save(path)
    await fill(path, texts("later", 40, 3))
    async with SqliteEngine(path, embedder=EMB) as engine:
        first = await answers(engine)
        matrix = matrix_of(engine)
        assert matrix.mapped_rows == 40
        while matrix.scans < vectors.MOVE_AFTER_SCANS:
            assert await answers(engine) == first
        assert await answers(engine) == first  # its refresh moved the rows
        assert matrix.mapped_rows == 0 and matrix.size == 43
        assert matrix.nbytes >= 43 * EMB.dim * 4
    assert first != want  # the three later rows take part
    assert first == await from_table(path)


async def test_a_purge_by_an_engine_without_an_embedder_deletes_every_copy_and_graph(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, texts("note", 0, 40))
    await read_and_save(path)
    assert vecfile.files(str(path))
    graph_file = tmp_path / "m.db.hnsw-another-embedder-8-e0"  # another engine's graph of this file
    graph_file.write_bytes(b"graph holding every vector")
    async with SqliteEngine(path, embedder=None) as engine:
        await engine.forget(ForgetRequest(ids=(ids[0],)))
        assert (await engine.purge(PurgeRequest())).purged == 1
    assert vecfile.files(str(path)) == []
    assert not graph_file.exists()


# -- the copy kept by the writing process (copies.py) ----------------------------------------------------


def copy_of(path: Path) -> vecfile.Mapped:
    (saved,) = vecfile.files(str(path))
    with sqlite3.connect(path) as conn:
        epoch = vectors.read_epoch(conn)
    mapped = vecfile.load(saved, EMB.name, EMB.dim, epoch)
    assert mapped is not None
    return mapped


async def test_the_writing_process_leaves_a_copy_that_answers_as_the_table_does(
    tmp_path: Path, writer_copies: None
) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    assert len(copy_of(path).rowids) == 40  # no read ran: the writer wrote it
    async with SqliteEngine(path, embedder=EMB) as engine:
        got = await answers(engine)
        assert matrix_of(engine).mapped_rows == 40 and matrix_of(engine).saver is None
    assert got == await from_table(path)


async def test_a_write_past_the_threshold_writes_the_copy_while_the_engine_is_open(
    tmp_path: Path, writer_copies: None
) -> None:
    path = tmp_path / "m.db"
    async with SqliteEngine(path, embedder=EMB) as engine:
        await engine.store_many([note(t) for t in texts("note", 0, 12)])  # past SAVE_MIN_ROWS
        keeper = engine.storage._copies
        assert keeper is not None and keeper.worker is not None
        keeper.worker.join(30)
        assert len(copy_of(path).rowids) == 12
        await engine.store_many([note(t) for t in texts("later", 12, 3)])  # short of it: at close
        assert len(copy_of(path).rowids) == 12
    assert len(copy_of(path).rowids) == 12  # 3 rows past the copy: fewer than CLOSE_MIN_TAIL


async def test_the_writer_extends_the_copy_with_the_rows_stored_since(
    tmp_path: Path, writer_copies: None
) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    first = copy_of(path)
    head = first.rows.copy()
    await fill(path, texts("later", 40, 6))
    extended = copy_of(path)
    assert len(extended.rowids) == 46 and extended.epoch == 0
    np.testing.assert_array_equal(extended.rows[:40], head)  # the old rows kept as they were
    async with SqliteEngine(path, embedder=EMB) as engine:
        got = await answers(engine)
        assert matrix_of(engine).mapped_rows == 46
    assert got == await from_table(path)


async def test_a_torn_copy_is_not_extended_but_written_again_from_the_table(
    tmp_path: Path, writer_copies: None
) -> None:
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    (saved,) = vecfile.files(str(path))
    saved.write_bytes(saved.read_bytes()[:-100])  # a crash of a writer that did not rename
    await fill(path, texts("later", 40, 6))
    assert len(copy_of(path).rowids) == 46
    async with SqliteEngine(path, embedder=EMB) as engine:
        got = await answers(engine)
        assert matrix_of(engine).mapped_rows == 46
    assert got == await from_table(path)


async def test_after_a_purge_the_writer_writes_a_copy_without_the_purged_vector(
    tmp_path: Path, writer_copies: None
) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, texts("note", 0, 40))
    with sqlite3.connect(path) as conn:
        rowid = int(conn.execute("SELECT rowid FROM items WHERE id = ?", (ids[0],)).fetchone()[0])
    old = copy_of(path)
    purged_bytes = old.rows[int(np.searchsorted(old.rowids, rowid))].tobytes()
    del old
    async with SqliteEngine(path, embedder=EMB) as engine:
        await engine.forget(ForgetRequest(ids=(ids[0],)))
        assert (await engine.purge(PurgeRequest())).purged == 1
        assert vecfile.files(str(path)) == []  # every copy held the purged vector
    (new,) = vecfile.files(str(path))
    assert new.name.endswith("-e1") and purged_bytes not in new.read_bytes()
    assert rowid not in copy_of(path).rowids and len(copy_of(path).rowids) == 39


async def test_a_copy_published_after_the_epoch_moved_is_deleted(tmp_path: Path, writer_copies: None) -> None:
    """A writer that read its rows before a purge committed: the check after its rename deletes it."""
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))
    held = copy_of(path)
    parts = [(held.rowids.copy(), held.rows.copy())]
    del held
    for p in vecfile.files(str(path)):
        p.unlink()
    with sqlite3.connect(path) as conn:  # what a purge commits meanwhile
        vectors.bump_epoch(conn)

    def epoch_now() -> int:
        with sqlite3.connect(path) as conn:
            return vectors.read_epoch(conn)

    assert vecfile.publish(str(path), parts, EMB.name, EMB.dim, 0, epoch_now) is None
    assert vecfile.files(str(path)) == []


async def test_building_the_graph_brings_the_copy_up_to_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("usearch")
    path = tmp_path / "m.db"
    await fill(path, texts("note", 0, 40))  # the writer's copies are off here: none is written
    assert vecfile.files(str(path)) == []
    monkeypatch.setattr(copies, "MIN_ROWS", 10)
    async with SqliteEngine(path, embedder=EMB, background_index=False) as engine:
        await engine.build_index()
    assert len(copy_of(path).rowids) == 40
