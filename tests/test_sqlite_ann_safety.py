"""The HNSW index's readiness for the engine: removal that takes a vector's bytes out of the saved file,
refusal of torn or foreign files, saves that a killed process cannot tear, a mapped (view) load that
copies itself on the first change, filtered searches, and blobs stored as float16 or float32."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usearch")

from test_sqlite_ann import EMB, built, fill, stored_rowids
from tinymemory.engines.sqlite.ann import _TAIL, HnswIndex
from tinymemory.engines.sqlite.vectors import VectorMatrix, from_blob, top_order


def blob_of(path: Path, rowid: int) -> bytes:
    with sqlite3.connect(path) as conn:
        return bytes(conn.execute("SELECT vec FROM vectors WHERE item_rowid = ?", (rowid,)).fetchone()[0])


def f16_bytes(path: Path, rowid: int) -> bytes:
    """The row's vector as float16 bytes: what a graph with no shift (centre 0) stores for it."""
    vec = from_blob(blob_of(path, rowid), EMB.dim)
    return np.asarray(vec / np.linalg.norm(vec), dtype="<f2").tobytes()


def graph_bytes(index: HnswIndex) -> bytes:
    assert index.path is not None
    return index.path.read_bytes()


async def test_remove_takes_the_vector_out_of_the_graph_and_out_of_the_saved_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"private {i}" for i in range(300)])
    rowids = stored_rowids(path)
    gone, kept = rowids[40], rowids[41]
    index = HnswIndex(str(path), EMB.name, EMB.dim, centre=0.0)
    with sqlite3.connect(path) as conn:
        index.refresh(conn)
    index.save()
    assert f16_bytes(path, gone) in graph_bytes(index)  # the check below can fail
    assert index.remove([gone, 10**9]) == 1 and index.remove([gone]) == 0
    assert index.size == 299
    query = EMB.embed_query("private 40")
    assert gone not in index.search(query, 50)[0].tolist()
    index.save()
    saved = graph_bytes(index)
    assert f16_bytes(path, gone) not in saved and f16_bytes(path, kept) in saved
    again = HnswIndex(str(path), EMB.name, EMB.dim, centre=0.0)
    assert again.load() and again.size == 299 and again.placeholders == 1
    assert gone not in again.search(query, 299)[0].tolist()
    assert again.search(EMB.embed_query("private 41"), 1)[0].tolist() == [kept]
    # a removal after a mapped load copies the graph first; the next save drops those bytes too
    viewed = HnswIndex(str(path), EMB.name, EMB.dim, centre=0.0)
    assert viewed.load(view=True) and viewed.viewed
    assert viewed.remove([kept]) == 1 and not viewed.viewed
    viewed.save()
    assert f16_bytes(path, kept) not in graph_bytes(viewed)


async def test_removal_with_the_default_shift_and_a_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"note {i}" for i in range(400)])
    rowids = stored_rowids(path)
    index = built(path)
    removed = rowids[::8]
    assert index.remove(removed) == len(removed)
    assert index.placeholders == len(removed) and index.stale_share > 0.1
    query = EMB.embed_query("note 3")
    before = index.search(query, 20)
    assert not set(before[0].tolist()) & set(removed)
    index.rebuild()
    assert index.placeholders == 0 and index.size == 400 - len(removed)
    assert index.last_rowid == max(rowids)
    after = index.search(query, 20)
    assert not set(after[0].tolist()) & set(removed)
    assert len(set(after[0].tolist()) & set(before[0].tolist())) >= 18
    with sqlite3.connect(path) as conn:
        assert index.refresh(conn) == 0  # removed rows are not added back


async def test_a_torn_or_foreign_file_is_refused_and_the_graph_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"kept {i}" for i in range(500)])
    index = built(path)
    index.save()
    assert index.path is not None
    whole = index.path.read_bytes()

    def refused(data: bytes, *, verify: bool = True) -> bool:
        assert index.path is not None
        index.path.write_bytes(data)
        return not HnswIndex(str(path), EMB.name, EMB.dim).load(verify=verify)

    assert refused(whole[: len(whole) // 2])
    assert refused(whole[:-1])
    assert refused(whole[:100])
    assert refused(b"")
    assert refused(b"not a graph at all" * 100)
    flipped = bytearray(whole)
    flipped[len(whole) // 3] ^= 0xFF
    assert refused(bytes(flipped))  # the checksum catches a changed byte
    index.path.write_bytes(whole)
    assert HnswIndex(str(path), EMB.name, EMB.dim).load(view=True)
    # a refused file is rebuilt from SQL and replaced
    index.path.write_bytes(whole[: len(whole) // 2])
    fresh = HnswIndex(str(path), EMB.name, EMB.dim)
    assert not fresh.load()
    with sqlite3.connect(path) as conn:
        assert fresh.refresh(conn) == 500
    fresh.save()
    again = HnswIndex(str(path), EMB.name, EMB.dim)
    assert again.load() and again.size == 500


SAVER = textwrap.dedent(
    """
    import sqlite3, sys
    sys.path.insert(0, sys.argv[3])
    from test_sqlite_ann import SeededEmbedder
    from tinymemory.engines.sqlite.ann import _TAIL, HnswIndex

    index = HnswIndex(sys.argv[1], SeededEmbedder.name, SeededEmbedder.dim)
    with sqlite3.connect(sys.argv[1]) as conn:
        index.refresh(conn)
    rowids = sorted(int(r) for r in index.search(SeededEmbedder().embed_query("x"), 10_000)[0])
    print("ready", flush=True)
    i = 0
    while True:  # alternate removing one row and rebuilding, saving after each change
        if i % 2 == 0:
            index.remove([rowids[i % len(rowids)]])
        else:
            index.rebuild()
        index.save()
        i += 1
    """
)


async def test_a_process_killed_while_saving_leaves_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"row {i}" for i in range(1500)])
    first = built(path)
    first.save()
    assert first.path is not None
    here = str(Path(__file__).parent)
    rng = np.random.default_rng(1)  # a seed whose shift bytes hold a "}"
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-c", SAVER, str(path), "-", here], stdout=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            time.sleep(float(rng.uniform(0.05, 0.4)))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        index = HnswIndex(str(path), EMB.name, EMB.dim)
        assert index.load(), "the file left after a kill must be whole"
        assert 1400 <= index.size <= 1500
    # a later save clears the temporary files the killed processes left behind
    index.save()
    assert not list(tmp_path.glob("*.tmp"))


async def test_a_mapped_load_reads_the_file_and_copies_itself_on_the_first_add(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"first {i}" for i in range(400)])
    built(path).save()
    copied, viewed = HnswIndex(str(path), EMB.name, EMB.dim), HnswIndex(str(path), EMB.name, EMB.dim)
    assert copied.load() and viewed.load(view=True) and viewed.viewed and not copied.viewed
    query = EMB.embed_query("first 9")
    assert viewed.search(query, 10)[0].tolist() == copied.search(query, 10)[0].tolist()
    viewed.save()  # unchanged since it was mapped: nothing to write
    await fill(path, [f"second {i}" for i in range(50)])
    with sqlite3.connect(path) as conn:
        assert viewed.refresh(conn) == 50
    assert not viewed.viewed and viewed.size == 450
    viewed.save()
    again = HnswIndex(str(path), EMB.name, EMB.dim)
    assert again.load(view=True) and again.size == 450 and again.last_rowid == max(stored_rowids(path))


async def test_filtered_searches_widen_until_enough_rows_pass(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"memory {i}" for i in range(1200)])
    index = built(path)
    matrix = VectorMatrix(EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        matrix.refresh(conn)
    rare = set(stored_rowids(path)[::50])  # 24 rows pass
    for q in range(5):
        query = EMB.embed_query(f"question {q}")
        keys, scores = index.search(query, 10, keep=lambda r: r in rare)
        assert len(keys) == 10 and set(keys.tolist()) <= rare and np.all(np.diff(scores) <= 0)
        passing = np.isin(matrix.rowids, sorted(rare))
        exact = matrix.rowids[passing][top_order(matrix.scores(query)[passing], 10)]
        assert len(set(exact.tolist()) & set(keys.tolist())) >= 9
    snapshot = stored_rowids(path)[99]
    keys, _ = index.search(EMB.embed_query("question 1"), 30, max_rowid=snapshot)
    assert len(keys) == 30 and keys.max() <= snapshot
    assert len(index.search(EMB.embed_query("x"), 10, keep=lambda r: False)[0]) == 0


async def test_blobs_stored_as_float16_or_float32_are_both_read(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"mixed {i}" for i in range(200)])
    rowids = stored_rowids(path)
    with sqlite3.connect(path) as conn:  # rewrite every other row the way older files stored it
        for r in rowids[::2]:
            wide = from_blob(blob_of(path, r), EMB.dim).astype("<f4").tobytes()
            conn.execute("UPDATE vectors SET vec = ? WHERE item_rowid = ?", (wide, r))
    assert len(blob_of(path, rowids[0])) == 4 * EMB.dim and len(blob_of(path, rowids[1])) == 2 * EMB.dim
    index = built(path)
    assert index.size == 200
    for i in (0, 1, 10, 11):
        keys, scores = index.search(EMB.embed_query(f"mixed {i}"), 1)
        assert keys[0] == rowids[i] and scores[0] == pytest.approx(1.0, abs=3e-3)


def test_a_saved_graph_loads_whatever_bytes_its_shift_holds(tmp_path: Path) -> None:
    """The footer's shift vector follows its JSON as raw bytes; a "}" among them (nearly certain at 256
    dimensions) once made every saved graph unreadable, so each start rebuilt it."""
    dim = 256
    rng = np.random.default_rng(1)  # a seed whose shift bytes hold a "}"
    block = rng.standard_normal((300, dim)).astype(np.float32)
    block /= np.linalg.norm(block, axis=1, keepdims=True)
    index = HnswIndex(str(tmp_path / "m.db"), "wide", dim)
    index.add(np.arange(1, 301, dtype=np.int64), block)
    index.save()
    assert index.path is not None
    assert b"}" in index.path.read_bytes()[-(4 * dim + _TAIL.size) : -_TAIL.size]
    again = HnswIndex(str(tmp_path / "m.db"), "wide", dim)
    assert again.load() and again.size == 300 and again.last_rowid == 300
    keys, _ = again.search(block[5], 1)
    assert keys.tolist() == [6]
