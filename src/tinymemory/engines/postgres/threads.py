"""Neighbouring turns: each active turn of a thread indexes the words of the turns before and after it.

The port of the SQLite engine's threads.py: when a turn is forgotten its words leave its neighbours
too, each neighbour's context being rebuilt from the active turns now beside it.
"""

from __future__ import annotations

from collections.abc import Iterable

from tinymemory.engines.postgres import lexstats
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.where import ACTIVE


async def _adjacent(conn: Conn, rowid: int, thread_id: str, ns: str) -> tuple[int | None, int | None]:
    """The active turns just before and just after `rowid` in its thread."""
    cur = await conn.execute(
        f"SELECT rowid FROM items WHERE thread_id = %s AND ns = %s AND rowid < %s AND {ACTIVE}"
        " ORDER BY rowid DESC LIMIT 1",
        (thread_id, ns, rowid),
    )
    before = await cur.fetchone()
    cur = await conn.execute(
        f"SELECT rowid FROM items WHERE thread_id = %s AND ns = %s AND rowid > %s AND {ACTIVE}"
        " ORDER BY rowid LIMIT 1",
        (thread_id, ns, rowid),
    )
    after = await cur.fetchone()
    return (None if before is None else int(before[0])), (None if after is None else int(after[0]))


async def neighbours_of(conn: Conn, rowids: Iterable[int]) -> set[int]:
    """The active turns beside any of `rowids` (call it once those rows are no longer active)."""
    out: set[int] = set()
    gone = set(rowids)
    for rowid in sorted(gone):
        cur = await conn.execute("SELECT thread_id, ns FROM items WHERE rowid = %s", (rowid,))
        row = await cur.fetchone()
        if row is None or row[0] is None:
            continue
        for near in await _adjacent(conn, rowid, str(row[0]), str(row[1])):
            if near is not None and near not in gone:
                out.add(near)
    return out


async def relink(conn: Conn, deltas: lexstats.Deltas, rowids: Iterable[int]) -> None:
    """Rebuild the context of each turn from the active turns now beside it."""
    for rowid in sorted(set(rowids)):
        cur = await conn.execute(f"SELECT thread_id, ns FROM items WHERE rowid = %s AND {ACTIVE}", (rowid,))
        row = await cur.fetchone()
        if row is None or row[0] is None:
            continue
        thread_id, ns = str(row[0]), str(row[1])

        async def relinked(words: str, rowid: int = rowid, thread_id: str = thread_id, ns: str = ns) -> str:
            # empty stays empty: a turn stored without the field keeps it out
            if not words:
                return words
            before, after = await _adjacent(conn, rowid, thread_id, ns)
            parts = (await lexstats.body_of(conn, before), await lexstats.body_of(conn, after))
            return " ".join(w for w in parts if w)

        await lexstats.set_context(conn, deltas, rowid, relinked)
