"""A reach's vectors read from the table while the whole matrix is not in memory are kept by rowid for
the next read: the same scores as from the table, emptied by a purge or a re-embed (the vectors epoch),
bounded in size, and never another reach's rows."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from test_sqlite_support import HashEmbedder, note, ns
from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, MetaFilter, PurgeRequest
from tinymemory.engines.sqlite import SqliteEngine, vectors
from tinymemory.engines.sqlite import engine as sqlite_engine
from tinymemory.engines.sqlite.vectors import VectorMatrix, scored_rows

WORDS = ["basil", "tomato", "harbour", "lantern", "river", "stone", "market", "bell"]
QUERIES = ["basil tomato", "old harbour bell", "river stone market", "lantern"]


@pytest.fixture(autouse=True)
def never_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_engine, "MATRIX_FILE_ROWS", 0)  # reads take the reach's vectors from SQL


def text(i: int) -> str:
    return f"note {WORDS[i % 8]} {WORDS[(i * 3) % 8]} {WORDS[(i * 5) % 8]} {i}"


async def filled(path: Path) -> list[str]:
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        stored = await engine.store_many([note(text(i), at=f"team:acme/user:u{i % 3}") for i in range(90)])
    return [s.id for s in stored]


def matrix_of(engine: SqliteEngine) -> VectorMatrix:
    matrix = engine.storage._matrix
    assert matrix is not None
    return matrix


async def pages(engine: SqliteEngine, user: str) -> list[list[tuple[str, float]]]:
    flt = MetaFilter(namespace=ns(f"team:acme/user:{user}"))
    out = []
    for q in QUERIES:
        for mode in (FetchMode.SEMANTIC, FetchMode.HYBRID):
            res = await engine.fetch(FetchRequest(q, mode=mode, filter=flt, limit=10))
            out.append([(h.item.id, h.score) for h in res.hits])
    return out


async def test_kept_rows_answer_as_the_table_does(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await filled(path)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        first = await pages(engine, "u0")
        matrix = matrix_of(engine)
        assert not matrix.loaded and len(matrix.sparse) == 30  # u0's rows, and only those
        assert await pages(engine, "u0") == first  # served from memory now
        other = await pages(engine, "u1")
        assert len(matrix.sparse) == 60
    async with SqliteEngine(path, embedder=HashEmbedder()) as cold:  # a fresh cache: the table alone
        assert await pages(cold, "u1") == other
        assert await pages(cold, "u0") == first


def test_the_scores_are_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    asyncio.run(filled(path))
    embedder = HashEmbedder()
    q = embedder.embed_query("basil tomato")
    with sqlite3.connect(path) as conn:
        rowids = [int(r[0]) for r in conn.execute("SELECT rowid FROM items ORDER BY random() LIMIT 40")]
        want_ids, want = scored_rows(conn, embedder.name, embedder.dim, rowids, q)
        sparse = vectors.SparseRows(embedder.name, embedder.dim)
        for _ in range(2):  # read from the table, then from memory
            got_ids, got = sparse.scored(conn, rowids, q)
            assert np.array_equal(got_ids, want_ids) and np.array_equal(got, want)


async def test_a_purge_empties_the_kept_rows_in_every_process(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await filled(path)
    async with (
        SqliteEngine(path, embedder=HashEmbedder()) as reader,
        SqliteEngine(path, embedder=HashEmbedder()) as writer,
    ):
        await pages(reader, "u0")
        assert len(matrix_of(reader).sparse) == 30
        await writer.forget(ForgetRequest(ids=(ids[0],)))  # ids[0] is u0's
        assert (await writer.purge(PurgeRequest())).purged == 1
        after = await pages(reader, "u0")  # the vectors epoch moved: the old rows are dropped first
        assert len(matrix_of(reader).sparse) == 29
        assert ids[0] not in {i for page in after for i, _ in page}


async def test_the_kept_rows_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SPARSE_ROWS", 40)
    path = tmp_path / "m.db"
    await filled(path)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        first = await pages(engine, "u0")
        second = await pages(engine, "u1")  # 30 more would pass 40: it starts again
        assert len(matrix_of(engine).sparse) == 30
        assert await pages(engine, "u0") == first and await pages(engine, "u1") == second
