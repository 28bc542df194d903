"""The optional HNSW index: agreement with the exact matrix, incremental refresh, persistence beside the
database file, and catching up with rows another process wrote."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("usearch")

from test_sqlite_support import note
from tinymemory.engines.sqlite import SqliteEngine, ann
from tinymemory.engines.sqlite.ann import HnswIndex, index_path, should_use
from tinymemory.engines.sqlite.vectors import VectorMatrix, top_order

DIM = 24


class SeededEmbedder:
    """A well-spread random unit vector per text (seeded by its hash), so neighbours are not tied."""

    name = "seeded-24"
    dim = DIM

    def __init__(self, name: str = "seeded-24") -> None:
        self.name = name

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)


EMB = SeededEmbedder()

WRITER = textwrap.dedent(
    """
    import asyncio, sqlite3, sys
    from test_sqlite_ann import SeededEmbedder
    from test_sqlite_support import note
    from tinymemory.engines.sqlite import SqliteEngine
    from tinymemory.engines.sqlite.ann import HnswIndex

    async def main(path, prefix, count, save):
        async with SqliteEngine(path, embedder=SeededEmbedder()) as eng:
            await eng.store_many([note(f"{prefix} {i}") for i in range(count)])
        if save == "save":
            index = HnswIndex(path, SeededEmbedder.name, SeededEmbedder.dim)
            index.load()
            with sqlite3.connect(path) as conn:
                index.refresh(conn)
            index.save()

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
    """
)


def run_writer(path: Path, prefix: str, count: int, save: bool) -> None:
    here = str(Path(__file__).parent)
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [str(path), prefix, str(count), "save" if save else "no"]
    out = subprocess.run(
        [sys.executable, "-c", WRITER, *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr


async def fill(path: Path, texts: list[str]) -> None:
    async with SqliteEngine(path, embedder=EMB) as engine:
        await engine.store_many([note(t) for t in texts])


def built(path: Path) -> HnswIndex:
    index = HnswIndex(str(path), EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        index.refresh(conn)
    return index


def stored_rowids(path: Path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [int(r[0]) for r in conn.execute("SELECT item_rowid FROM vectors ORDER BY item_rowid")]


async def test_top_ten_agrees_with_the_exact_scan(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"memory {i}" for i in range(1500)])
    index = built(path)
    matrix = VectorMatrix(EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        matrix.refresh(conn)
    assert index.size == matrix.size == 1500
    recalls = []
    for q in range(40):
        query = EMB.embed_query(f"question {q}")
        exact = {int(matrix.rowids[i]) for i in top_order(matrix.scores(query), 10)}
        keys, scores = index.search(query, 10)
        assert len(keys) == 10 and np.all(np.diff(scores) <= 0)
        recalls.append(len(exact & set(keys.tolist())) / 10)
    assert float(np.mean(recalls)) >= 0.9
    # a stored vector finds itself first, with its exact cosine
    keys, scores = index.search(EMB.embed_query("memory 77"), 1)
    assert keys[0] == stored_rowids(path)[77] and scores[0] == pytest.approx(1.0, abs=2e-3)


async def test_a_search_at_an_expansion_finds_what_usearch_finds_at_it(tmp_path: Path) -> None:
    # the index keeps usearch's own expansion low and asks for more rows instead (ann.EXPANSION_FLOOR):
    # the rows must be those usearch gives with its expansion set, for each expansion a read asks
    path = tmp_path / "m.db"
    await fill(path, [f"memory {i}" for i in range(4000)])
    index = built(path)
    raw = index._index
    differ = 0
    for q in range(60):
        query = EMB.embed_query(f"question {q}")
        got = {}
        for ef in (ann.EXPANSION_FLOOR, 512):
            keys, _ = index.search(query, 12, expansion=ef)
            raw.expansion_search = ef
            want = raw.search(np.asarray(query, dtype=np.float32), 12, threads=1)
            raw.expansion_search = ann.EXPANSION_FLOOR
            assert sorted(keys.tolist()) == sorted(int(k) for k in want.keys)
            got[ef] = keys.tolist()
        differ += got[ann.EXPANSION_FLOOR] != got[512]
        first = index.first_round(query, 12, expansion=512)
        assert first.answers(raw, np.asarray(query, dtype=np.float32), first.ask, 512)
        assert not first.answers(raw, np.asarray(query, dtype=np.float32), first.ask, 256)
    assert differ > 0  # the expansion changes what this graph finds, so the comparison means something


async def test_refresh_adds_only_new_rows_and_search_respects_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"old {i}" for i in range(200)])
    index = built(path)
    snapshot = index.last_rowid
    with sqlite3.connect(path) as conn:
        assert index.refresh(conn) == 0
    await fill(path, [f"new {i}" for i in range(30)])
    with sqlite3.connect(path) as conn:
        assert index.refresh(conn) == 30
    assert index.size == 230 and index.last_rowid == max(stored_rowids(path))
    query = EMB.embed_query("new 12")
    keys, _ = index.search(query, 5)
    assert keys[0] == stored_rowids(path)[212]
    keys, _ = index.search(query, 50, max_rowid=snapshot)
    assert len(keys) > 0 and keys.max() <= snapshot


async def test_the_graph_persists_beside_the_database(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"kept {i}" for i in range(300)])
    first = built(path)
    first.save()
    assert first.path == index_path(str(path), EMB.name, EMB.dim) and first.path is not None
    assert first.path.exists() and not list(tmp_path.glob("*.tmp"))
    again = HnswIndex(str(path), EMB.name, EMB.dim)
    assert again.load() and again.size == 300 and again.last_rowid == first.last_rowid
    with sqlite3.connect(path) as conn:
        assert again.refresh(conn) == 0
    query = EMB.embed_query("kept 5")
    assert again.search(query, 10)[0].tolist() == first.search(query, 10)[0].tolist()
    # another embedder or dimension has its own file; nothing to load for it yet
    assert not HnswIndex(str(path), "other-model", EMB.dim).load()
    assert not HnswIndex(str(path), EMB.name, EMB.dim * 2).load()
    assert index_path(":memory:", EMB.name, EMB.dim) is None


async def test_a_process_catches_up_with_another_processes_writes(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    await fill(path, [f"mine {i}" for i in range(50)])
    run_writer(path, "theirs", 40, save=True)  # writes rows and saves the graph covering them
    index = HnswIndex(str(path), EMB.name, EMB.dim)
    assert index.load() and index.size == 90 and index.last_rowid == max(stored_rowids(path))
    run_writer(path, "later", 25, save=False)  # rows only: the saved graph is now behind
    with sqlite3.connect(path) as conn:
        assert index.refresh(conn) == 25
    keys, _ = index.search(EMB.embed_query("later 3"), 1)
    assert keys[0] == stored_rowids(path)[90 + 3]


def test_the_threshold_decides_use() -> None:
    assert not should_use(10_000)
    assert should_use(2_000_000)
    assert should_use(10, threshold=5) and not should_use(4, threshold=5)
