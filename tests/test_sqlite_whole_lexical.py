"""The whole store's lexical read (FTS5's bm25, then the filter): its best rows are the best readable
ones, in FTS5's order, however many of FTS5's best are superseded (the read widens until it has enough)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from test_sqlite_support import fts_oracle, note
from tinymemory.api import MetaFilter
from tinymemory.api.items import About
from tinymemory.engines.sqlite import SqliteEngine, search
from tinymemory.retrieval.pipeline import unit_score


def oracle(conn: sqlite3.Connection, query: str, n: int, context_weight: float) -> search.Ranked:
    """FTS5's bm25 over every indexed row, keeping the active ones: what the read must return."""
    fts_oracle(conn)
    rows = conn.execute(
        f"SELECT f.rowid, bm25(items_fts, 2.0, 1.0, {context_weight!r}) AS r FROM items_fts f"
        " JOIN items i ON i.rowid = f.rowid WHERE items_fts MATCH ? AND i.valid_to IS NULL"
        " AND i.forgotten_at IS NULL ORDER BY r, f.rowid",
        (query,),
    ).fetchall()
    return [(int(rowid), unit_score(-rank)) for rowid, rank in rows if rank < 0][:n]


async def test_superseded_best_rows_are_passed_over_in_fts_order(tmp_path: Path) -> None:
    path = tmp_path / "whole.db"
    async with SqliteEngine(str(path), embedder=None) as engine:
        # short rows score best: each has a later, longer version that supersedes it
        short = [note(f"violin {i}", about=About("topic", f"k{i}")) for i in range(150)]
        await engine.store_many(short)
        longer = [
            note(
                f"violin practice went well on day {i} with the whole orchestra",
                about=About("topic", f"k{i}"),
            )
            for i in range(150)
        ]
        await engine.store_many(longer)
        await engine.store_many([note(f"violin and viola duet number {i}") for i in range(40)])
        await engine.store_many([note(f"unrelated cello note {i}") for i in range(40)])
    conn = sqlite3.connect(path)
    snapshot = search.max_rowid(conn)
    got = search.lexical(conn, engine.analyzer, "violin", MetaFilter(), snapshot, 60, context_weight=0.5)
    expected = oracle(conn, "violin", 60, 0.5)
    superseded = {int(r[0]) for r in conn.execute("SELECT rowid FROM items WHERE valid_to IS NOT NULL")}
    # FTS5's first round (2n+32 rows) is almost all superseded rows: the read has to widen
    raw = conn.execute(
        "SELECT rowid FROM items_fts WHERE items_fts MATCH 'violin' ORDER BY bm25(items_fts), rowid LIMIT 150"
    ).fetchall()
    conn.close()
    assert len(superseded) == 150 and {int(r[0]) for r in raw} == superseded
    assert len(got) == 60 and got == expected
    assert not superseded & {r for r, _ in got}


async def test_a_snapshot_before_later_rows_leaves_them_out(tmp_path: Path) -> None:
    path = tmp_path / "snap.db"
    async with SqliteEngine(str(path), embedder=None) as engine:
        await engine.store_many([note(f"kayak trip {i}") for i in range(30)])
        conn = sqlite3.connect(path)
        snapshot = search.max_rowid(conn)
        await engine.store_many([note("kayak") for _ in range(1)])
        got = search.lexical(conn, engine.analyzer, "kayak", MetaFilter(), snapshot, 10)
        conn.close()
    assert len(got) == 10 and all(r <= snapshot for r, _ in got)
