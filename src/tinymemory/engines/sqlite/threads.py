"""Neighbouring turns: each active turn of a thread indexes the words of the turns before and after it.

A turn's `context` column holds its neighbours' analysed words (a lighter lexical field; see
retrieval.config.ContextConfig). When a turn is forgotten, its words must leave its neighbours too, so
they are relinked: each neighbour's context is rebuilt from the active turns now beside it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from functools import partial

from tinymemory.engines.sqlite import lexstats
from tinymemory.engines.sqlite.where import ACTIVE


def _adjacent(conn: sqlite3.Connection, rowid: int, thread_id: str, ns: str) -> tuple[int | None, int | None]:
    """The active turns just before and just after `rowid` in its thread."""
    before = conn.execute(
        f"SELECT rowid FROM items WHERE thread_id = ? AND ns = ? AND rowid < ? AND {ACTIVE}"
        " ORDER BY rowid DESC LIMIT 1",
        (thread_id, ns, rowid),
    ).fetchone()
    after = conn.execute(
        f"SELECT rowid FROM items WHERE thread_id = ? AND ns = ? AND rowid > ? AND {ACTIVE}"
        " ORDER BY rowid LIMIT 1",
        (thread_id, ns, rowid),
    ).fetchone()
    return (None if before is None else int(before[0])), (None if after is None else int(after[0]))


def neighbours_of(conn: sqlite3.Connection, rowids: Iterable[int]) -> set[int]:
    """The active turns beside any of `rowids` (call it once those rows are no longer active)."""
    out: set[int] = set()
    gone = set(rowids)
    for rowid in gone:
        row = conn.execute("SELECT thread_id, ns FROM items WHERE rowid = ?", (rowid,)).fetchone()
        if row is None or row[0] is None:
            continue
        for near in _adjacent(conn, rowid, str(row[0]), str(row[1])):
            if near is not None and near not in gone:
                out.add(near)
    return out


def body(conn: sqlite3.Connection, rowid: int | None, docs: str = lexstats.DOCS) -> str:
    """An indexed row's analysed body ("" for none)."""
    if rowid is None:
        return ""
    row = conn.execute(f"SELECT body FROM {docs} WHERE rowid = ?", (rowid,)).fetchone()
    return "" if row is None else str(row[0] or "")


def _relinked(words: str, *, conn: sqlite3.Connection, rowid: int, thread_id: str, ns: str, docs: str) -> str:
    """A turn's new context: its active neighbours' words (empty stays empty: stored without the field)."""
    if not words:
        return words
    before, after = _adjacent(conn, rowid, thread_id, ns)
    return " ".join(w for w in (body(conn, before, docs), body(conn, after, docs)) if w)


def relink(
    conn: sqlite3.Connection, deltas: lexstats.Deltas, rowids: Iterable[int], docs: str = lexstats.DOCS
) -> None:
    """Rebuild the context of each turn from the active turns now beside it (`docs`: see
    `lexstats.set_context`)."""
    for rowid in sorted(set(rowids)):
        row = conn.execute(
            f"SELECT thread_id, ns FROM items WHERE rowid = ? AND {ACTIVE}", (rowid,)
        ).fetchone()
        if row is None or row[0] is None:
            continue
        change = partial(_relinked, conn=conn, rowid=rowid, thread_id=str(row[0]), ns=str(row[1]), docs=docs)
        lexstats.set_context(conn, deltas, rowid, change, docs)
