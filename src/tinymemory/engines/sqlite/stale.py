"""Items without a vector from the engine's embedder: counted to warn once, listed to be re-embedded.

An item is stale when it is not forgotten and has no vector of the current embedder's name and size: it
was stored with another embedder (a switch of model or dimension) or with none (lexical only). Semantic
search reads only the current embedder's vectors, so stale items are invisible to it until
`tinymemory embedder reembed` (SqliteEngine.reembed) gives them one.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass

from tinymemory.engines.versions import embedding_text

_FROM = "items i LEFT JOIN vectors v ON v.item_rowid = i.rowid"
_STALE = "i.forgotten_at IS NULL AND (v.item_rowid IS NULL OR v.embedder != ? OR v.dim != ?)"
NO_VECTOR = ""  # the source of an item stored without an embedder

_log = logging.getLogger(__name__)
_warned: set[tuple[str, str, int]] = set()
_warned_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Stale:
    rowid: int
    text: str  # what the embedder reads: the same text a store embeds


def stale_by_source(conn: sqlite3.Connection, embedder: str, dim: int) -> dict[str, int]:
    """How many stale items each other embedder made (NO_VECTOR: stored without one)."""
    rows = conn.execute(
        f"SELECT coalesce(v.embedder, ''), count(*) FROM {_FROM} WHERE {_STALE}"
        " GROUP BY 1 ORDER BY 2 DESC, 1",
        (embedder, dim),
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def stale_count(conn: sqlite3.Connection, embedder: str, dim: int) -> int:
    row = conn.execute(f"SELECT count(*) FROM {_FROM} WHERE {_STALE}", (embedder, dim)).fetchone()
    return int(row[0])


def stale_batch(conn: sqlite3.Connection, embedder: str, dim: int, after: int, limit: int) -> list[Stale]:
    """The next `limit` stale items past rowid `after`, in rowid order (a cursor, so a run always ends)."""
    rows = conn.execute(
        f"SELECT i.rowid, i.title, i.text FROM {_FROM} WHERE i.rowid > ? AND {_STALE}"
        " ORDER BY i.rowid LIMIT ?",
        (after, embedder, dim, limit),
    ).fetchall()
    return [Stale(int(r[0]), embedding_text(r[1], str(r[2]))) for r in rows]


def _file_of(conn: sqlite3.Connection) -> str:
    for row in conn.execute("PRAGMA database_list").fetchall():
        if row[1] == "main":
            return str(row[2]) or ":memory:"
    return ":memory:"  # pragma: no cover - every connection has a main database


def warn_if_stale(conn: sqlite3.Connection, embedder: str, dim: int, current: int) -> int:
    """Log one warning per process, file and embedder when items are stale; return how many are.

    `current` is how many vectors of this embedder exist (the matrix just loaded them all): when every
    item has one, the largest rowid (or a count) proves nothing is stale and the exact count is skipped.
    """
    # rowids are positive and distinct, so the largest bounds the count: one index probe proves most
    # files whole, where count(*) reads every row of an index (10 ms at 100,000 items, on a first read)
    top = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM items").fetchone()[0])
    if top <= current or int(conn.execute("SELECT count(*) FROM items").fetchone()[0]) <= current:
        return 0
    by_source = stale_by_source(conn, embedder, dim)
    count = sum(by_source.values())
    if count == 0:
        return 0
    path = _file_of(conn)
    with _warned_lock:
        if (path, embedder, dim) in _warned:
            return count
        _warned.add((path, embedder, dim))
    sources = ", ".join(
        f"{n} without a vector" if name == NO_VECTOR else f"{n} by {name}" for name, n in by_source.items()
    )
    _log.warning(
        "sqlite: %d items in %s have no vector from the current embedder %s (%s), so semantic search "
        "cannot see them; run `tinymemory embedder reembed` (--db %s) to embed them again",
        count,
        path,
        embedder,
        sources,
        path,
    )
    return count
