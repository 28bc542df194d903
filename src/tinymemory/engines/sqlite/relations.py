"""Writing a memory version's relations into the `relations` table (schema 6), and comparing them.

The edges belong to one item row: they are written with it, hidden with it (reads join `items` and
apply the read's filter, so a forgotten or superseded memory's edges drop out at once) and deleted
with it by purge.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from tinymemory.api.items import Relation
from tinymemory.api.relations import entity_key


def write(conn: sqlite3.Connection, item_rowid: int, relations: Sequence[Relation]) -> None:
    """One row per edge, with the matching keys of both ends."""
    if not relations:
        return
    conn.executemany(
        "INSERT INTO relations (item_rowid, subject, subject_key, type, object, object_key)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (item_rowid, r.subject, entity_key(r.subject), r.type, r.object, entity_key(r.object))
            for r in relations
        ],
    )
