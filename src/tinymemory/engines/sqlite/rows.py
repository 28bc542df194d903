"""SQLite reads the shared row layout (engines/rows.py): a row that does not decode is a damaged file."""

from __future__ import annotations

from tinymemory.api.items import MemoryItem
from tinymemory.engines import rows
from tinymemory.engines.sqlite.db import DamagedRow


def decode_item(row: rows.NamedRow) -> MemoryItem:
    """The item a row holds; a row tinymemory did not write that way raises DamagedRow, which the engine
    reports as a damaged file (db.database_error)."""
    try:
        return rows.decode_item(row)
    except rows.UndecodableRow as exc:
        raise DamagedRow(str(exc)) from exc
