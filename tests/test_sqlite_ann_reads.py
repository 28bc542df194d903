"""The HNSW graph wired into semantic reads (engines/sqlite/ann_reads.py): which reads use it, that its
answers are the exact plan's, the tail of rows stored after a build, purge and re-embed, a torn file."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("usearch")

from test_sqlite_ann import SeededEmbedder
from test_sqlite_support import note
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    MetaFilter,
    Namespace,
    PurgeRequest,
    Reach,
)
from tinymemory.engines.sqlite import SqliteEngine, ann, ann_reads, search

ITEMS = 600
pytestmark = pytest.mark.asyncio


QUERIES = [f"query number {i}" for i in range(12)]


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 200)


def team(i: int) -> str:
    return f"team:t{i % 3}"


async def fill(path: Path, start: int, count: int, emb: SeededEmbedder | None = None) -> list[str]:
    async with SqliteEngine(path, embedder=emb or SeededEmbedder()) as engine:
        items = [note(f"memory {i}", at=team(i)) for i in range(start, start + count)]
        stored = await engine.store_many(items)
    return [s.id for s in stored]


async def reads(engine: SqliteEngine, flt: MetaFilter | None = None) -> list[list[tuple[str, float]]]:
    out = []
    for q in QUERIES:
        got = await engine.fetch(
            FetchRequest(q, mode=FetchMode.SEMANTIC, filter=flt or MetaFilter(), limit=10)
        )
        out.append([(h.item.id, h.score) for h in got.hits])
    return out


async def first_plan(engine: SqliteEngine) -> search.Plan | None:
    """The plan of one read (a build it starts runs beside later reads, so only this one is certain)."""
    await engine.fetch(FetchRequest(QUERIES[0], mode=FetchMode.SEMANTIC, limit=10))
    return engine.last_semantic_plan


async def built(engine: SqliteEngine) -> None:
    """Ask once (which starts the background build), then wait for it."""
    await engine.fetch(FetchRequest("warm up", mode=FetchMode.SEMANTIC, limit=5))
    assert engine.storage._graphs is not None and engine.storage._graphs.wait(60)


async def test_a_large_read_uses_the_graph_and_answers_as_the_exact_scan(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as exact_engine:
        exact_engine.storage._graphs = None  # the exact plans only
        exact = await reads(exact_engine)
        assert exact_engine.last_semantic_plan is search.Plan.SCAN
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        assert await first_plan(engine) is search.Plan.SCAN  # no graph yet: one is built meanwhile
        await built(engine)
        assert engine.storage._graphs is not None and engine.storage._graphs.files()
        assert await reads(engine) == exact  # a small graph finds every true neighbour
        assert engine.last_semantic_plan is search.Plan.HNSW


async def test_a_new_process_maps_the_saved_graph(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        want = await reads(engine)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        assert await reads(engine) == want
        assert engine.last_semantic_plan is search.Plan.HNSW


async def test_without_background_builds_a_large_read_scans_but_still_maps_a_saved_graph(
    tmp_path: Path,
) -> None:
    """A short-lived process (`background_index=False`, the CLI's one-shot commands) starts no build it
    could not finish; a graph saved by a long-lived process or `tinymemory db index` still serves it."""
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder(), background_index=False) as engine:
        assert engine.background_index is False
        assert await reads(engine) and engine.last_semantic_plan is search.Plan.SCAN
        assert (
            engine.storage._graphs is not None and engine.storage._graphs._worker is None
        )  # no build was started
        assert not engine.storage._graphs.files()
        await engine.build_index()  # the foreground build is still there when asked for
    async with SqliteEngine(path, embedder=SeededEmbedder(), background_index=False) as engine:
        assert await first_plan(engine) is search.Plan.HNSW


async def test_rows_stored_after_the_build_are_found_through_the_tail(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        (new_id,) = [s.id for s in await engine.store_many([note("query number 3", at="team:t0")])]
        got = await engine.fetch(FetchRequest("query number 3", mode=FetchMode.SEMANTIC, limit=3))
        assert engine.last_semantic_plan is search.Plan.HNSW
        assert got.hits[0].item.id == new_id and got.hits[0].score == pytest.approx(1.0, abs=1e-3)


async def test_rows_of_another_embedder_do_not_count_in_the_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph can never take in another embedder's rows, so they must not make it look behind."""
    monkeypatch.setattr(ann_reads, "TAIL_MAX", 20)
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        await fill(path, ITEMS, 60, SeededEmbedder("seeded-other"))
        assert await first_plan(engine) is search.Plan.HNSW


async def test_a_small_reach_never_goes_through_the_graph(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    one_team = MetaFilter(reach=Reach.exact(Namespace.parse("team:t1")))
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        scoped = await reads(engine, one_team)
        assert engine.last_semantic_plan in (search.Plan.FILTER_FIRST, search.Plan.REACH_BLOCKS)
        assert all(all(h[0] for h in hits) for hits in scoped)


async def test_a_filtered_read_too_large_to_score_row_by_row_scans_instead_of_walking_the_graph(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    every_learning = MetaFilter(kinds=(ItemKind.LEARNING,))  # admits all 600 rows: past filter-first
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        exact = await reads(engine, every_learning)
        assert engine.last_semantic_plan is search.Plan.SCAN
        assert exact == await reads(engine)  # the same rows as the whole store, scored exactly


async def test_forgotten_rows_are_not_returned_and_purge_removes_the_graph_files(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        before = await reads(engine)
        top = before[0][0][0]
        await engine.forget(ForgetRequest(ids=(top,)))
        after = await reads(engine)
        assert engine.last_semantic_plan is search.Plan.HNSW
        assert top not in {i for hits in after for i, _ in hits}
        assert engine.storage._graphs is not None and engine.storage._graphs.files()
        assert (await engine.purge(PurgeRequest())).purged >= 1
        assert engine.storage._graphs.files() == []  # the files held the purged vector
        assert await reads(engine) == after  # the exact scan answers until a new graph is built
        assert engine.storage._graphs.wait(60) and engine.storage._graphs.files()


async def test_a_torn_graph_file_is_rebuilt_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        want = await reads(engine)
        assert engine.storage._graphs is not None
        (graph_file,) = engine.storage._graphs.files()
    graph_file.write_bytes(graph_file.read_bytes()[: graph_file.stat().st_size // 2])
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        assert await first_plan(engine) is search.Plan.SCAN  # the exact scan while it is rebuilt
        assert engine.storage._graphs is not None and engine.storage._graphs.wait(60)
        assert await reads(engine) == want
        assert engine.last_semantic_plan is search.Plan.HNSW


async def test_a_reembed_makes_a_new_graph_and_retires_the_old_epochs(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        assert engine.storage._graphs is not None
        (old,) = engine.storage._graphs.files()
    async with SqliteEngine(path, embedder=SeededEmbedder("seeded-b")) as engine:
        assert (await engine.reembed()).reembedded == ITEMS  # every vector rewritten: the epoch moves
        assert await first_plan(engine) is search.Plan.SCAN  # no graph of the new vectors yet
        assert engine.storage._graphs is not None and engine.storage._graphs.wait(60)
        await reads(engine)
        assert engine.last_semantic_plan is search.Plan.HNSW
        assert not old.exists()  # a graph of vectors that no longer exist is deleted


async def test_a_purge_moves_the_vectors_epoch_so_every_process_drops_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, 0, ITEMS)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await built(engine)
        assert engine.storage._graphs is not None
        (old,) = engine.storage._graphs.files()
        assert old.name.endswith("-e0")
        await engine.forget(ForgetRequest(ids=(ids[0],)))
        await engine.purge(PurgeRequest())
        assert engine.storage._graphs.files() == []
        await reads(engine)
        assert engine.storage._graphs.wait(60)
        (new,) = engine.storage._graphs.files()
        assert new.name.endswith("-e1")  # a graph of the vectors as they are after the purge


async def test_one_process_builds_while_another_holds_the_build_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    from tinymemory.engines.sqlite import ann_reads

    monkeypatch.setattr(ann_reads, "RETRY_S", 0.0)
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    with open(f"{path}.hnsw.lock", "a+b") as other_process:
        fcntl.flock(other_process.fileno(), fcntl.LOCK_EX)
        async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
            assert await first_plan(engine) is search.Plan.SCAN
            assert engine.storage._graphs is not None and engine.storage._graphs.wait(60)
            assert engine.storage._graphs.files() == []  # it left the build to the lock's holder
            fcntl.flock(other_process.fileno(), fcntl.LOCK_UN)
            await built(engine)
            assert engine.storage._graphs.files()
            assert await first_plan(engine) is search.Plan.HNSW


async def test_the_graph_round_asked_ahead_gives_the_rows_the_read_would_ask_for(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, ITEMS)
    emb = SeededEmbedder()
    async with SqliteEngine(path, embedder=emb) as engine:
        await built(engine)
        hybrid = []
        for q in QUERIES:
            got = await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=10))
            hybrid.append([(h.item.id, h.score) for h in got.hits])
        assert engine.last_semantic_plan is search.Plan.HNSW
        graphs = engine.storage._graphs
        assert graphs is not None and graphs._graph is not None
        graph = graphs._graph
        for q in QUERIES:
            qvec = emb.embed_query(q)
            first = graphs.first_round(qvec, 10)
            assert first is not None and first.answers(graph._index, qvec, first.ask, first.expansion)
            ahead = graph.search(qvec, ann_reads.first_k(10), max_rowid=ITEMS, first=first)
            asked = graph.search(qvec, ann_reads.first_k(10), max_rowid=ITEMS)
            assert ahead[0].tolist() == asked[0].tolist() and ahead[1].tolist() == asked[1].tolist()
            other = emb.embed_query(q + " and more")
            assert not first.answers(
                graph._index, other, first.ask, first.expansion
            )  # another query asks again
    async with SqliteEngine(path, embedder=emb) as serial:  # the graph asked on the reader alone
        graphs = serial.storage._graphs
        assert graphs is not None
        graphs.first_round = lambda qvec, n, expansion=None: None  # type: ignore[method-assign]
        again = []
        for q in QUERIES:
            got = await serial.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=10))
            again.append([(h.item.id, h.score) for h in got.hits])
        assert serial.last_semantic_plan is search.Plan.HNSW
    assert again == hybrid


async def test_the_visibility_check_agrees_between_its_two_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    path = tmp_path / "m.db"
    ids = await fill(path, 0, 60)
    async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
        await engine.forget(ForgetRequest(ids=tuple(ids[::7])))
    conn = sqlite3.connect(path)
    try:
        rowids = list(range(1, 70))  # some past the snapshot, some forgotten
        listed = search._visible(conn, rowids, MetaFilter(), 50)
        monkeypatch.setattr(search, "VISIBLE_LIST_MAX", 0)
        assert search._visible(conn, rowids, MetaFilter(), 50) == listed
        assert (
            len(listed) == 50 - len(range(1, 51, 7)) and search._visible(conn, [], MetaFilter(), 50) == set()
        )
    finally:
        conn.close()
