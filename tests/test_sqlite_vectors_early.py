"""The early scan (run beside the lexical query) gives exactly the scores of a scan made after the
refresh: rows loaded in between are scored late, and a reset in between discards the early scan."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite.vectors import VectorMatrix

EMB = HashEmbedder()


async def fill(path: Path, texts: list[str]) -> None:
    async with SqliteEngine(path, embedder=EMB) as engine:
        await engine.store_many([note(t) for t in texts])


async def test_rows_loaded_after_the_early_scan_are_scored_late(tmp_path: Path) -> None:
    path = tmp_path / "early.db"
    await fill(path, [f"first batch note {i}" for i in range(300)])
    matrix = VectorMatrix(EMB.name, EMB.dim)
    query = EMB.embed_query("batch note 7")
    with sqlite3.connect(path) as conn:
        matrix.refresh(conn)
        early = matrix.early_scores(query)
        assert early.rows == 300
        await fill(path, [f"second batch note {i}" for i in range(200)])
        matrix.refresh(conn)
        assert matrix.size == 500
        combined = matrix.scores(query, None, early)
        np.testing.assert_array_equal(combined, matrix.scores(query))

        matrix.reset()  # e.g. a purge: the early scan belongs to another generation
        matrix.refresh(conn)
        np.testing.assert_array_equal(matrix.scores(query, None, early), matrix.scores(query))


async def test_hybrid_fetch_with_the_early_scan_sees_new_writes(tmp_path: Path) -> None:
    path = tmp_path / "engine.db"
    async with SqliteEngine(path, embedder=EMB) as engine:
        await engine.store_many([note(f"filler memory number {i}") for i in range(200)])
        await engine.fetch(FetchRequest("warm the matrix", mode=FetchMode.HYBRID))
        fresh = await engine.store(note("the quokka migration report"))
        for mode in (FetchMode.SEMANTIC, FetchMode.HYBRID):
            hits = (await engine.fetch(FetchRequest("the quokka migration report", mode=mode))).hits
            assert hits[0].item.id == fresh.id
