"""The matrix loads in chunks: any chunk size gives the same rows, in rowid order, and later refreshes
add only what is new (including rows another embedder wrote, which are skipped)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.engines.sqlite import SqliteEngine, vectors
from tinymemory.engines.sqlite.vectors import VectorMatrix

EMB = HashEmbedder()


async def fill(path: Path, texts: list[str], embedder: HashEmbedder = EMB) -> None:
    async with SqliteEngine(path, embedder=embedder) as engine:
        await engine.store_many([note(t) for t in texts])


def loaded(path: Path) -> VectorMatrix:
    matrix = VectorMatrix(EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        matrix.refresh(conn)
    return matrix


@pytest.mark.parametrize("chunk", [1, 3, 4, 13, 64])
async def test_any_chunk_size_loads_the_same_rows_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    path = tmp_path / "m.db"
    await fill(path, [f"river stone {i}" for i in range(13)])
    whole = loaded(path)
    monkeypatch.setattr(vectors, "REFRESH_CHUNK", chunk)
    parts = loaded(path)
    assert parts.size == whole.size == 13
    assert parts.rowids.tolist() == whole.rowids.tolist() == sorted(whole.rowids.tolist())
    query = EMB.embed_query("river stone 5")
    np.testing.assert_array_equal(parts.scores(query), whole.scores(query))
    assert parts.nbytes >= 13 * (EMB.dim * 4 + 8)


async def test_later_refreshes_add_only_new_rows_of_this_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "REFRESH_CHUNK", 4)
    path = tmp_path / "m.db"
    await fill(path, [f"first batch {i}" for i in range(6)])
    matrix = VectorMatrix(EMB.name, EMB.dim)
    with sqlite3.connect(path) as conn:
        assert matrix.refresh(conn) == 6
        assert matrix.refresh(conn) == 0
    await fill(path, [f"other model {i}" for i in range(5)], HashEmbedder("hash-other"))
    await fill(path, [f"second batch {i}" for i in range(9)])
    with sqlite3.connect(path) as conn:
        assert matrix.refresh(conn) == 9
        ours = [r[0] for r in conn.execute("SELECT item_rowid FROM vectors WHERE embedder = ?", (EMB.name,))]
    assert matrix.size == 15 and matrix.rowids.tolist() == sorted(ours)
    scores = matrix.scores(EMB.embed_query("second batch 8"))
    # stored as float16: a vector scored against itself comes within about 1e-4 of 1
    assert scores[matrix.rowids.tolist().index(max(ours))] == pytest.approx(1.0, abs=1e-3)
