"""The SQLite file's cursor key; the sealed cursors themselves are engine-neutral (engines/cursors.py).

The key is a random 256-bit value in the file's `engine_meta` table, created on first need.
"""

from __future__ import annotations

import base64
import binascii
import os
import sqlite3

from tinymemory.api.errors import Unavailable
from tinymemory.engines.cursors import (
    KEY_NAME,
    MAX_OFFSET,
    MAX_POOL,
    MAX_ROWID,
    MAX_US,
    MIN_US,
    CursorCodec,
    FetchCursor,
    ListCursor,
    fingerprint,
)
from tinymemory.engines.sqlite import db

__all__ = [
    "KEY_NAME",
    "MAX_OFFSET",
    "MAX_POOL",
    "MAX_ROWID",
    "MAX_US",
    "MIN_US",
    "CursorCodec",
    "FetchCursor",
    "ListCursor",
    "fingerprint",
    "load_key",
]


def load_key(conn: sqlite3.Connection) -> bytes:
    """The file's cursor key, created on first need. Call outside any transaction: two processes racing
    to create it both end up with the one that was committed first."""
    row = conn.execute("SELECT value FROM engine_meta WHERE key = ?", (KEY_NAME,)).fetchone()
    if row is None:
        fresh = base64.b64encode(os.urandom(32)).decode("ascii")
        db.in_write(
            conn,
            lambda w: w.execute(
                "INSERT OR IGNORE INTO engine_meta (key, value) VALUES (?, ?)", (KEY_NAME, fresh)
            ),
        )
        row = conn.execute("SELECT value FROM engine_meta WHERE key = ?", (KEY_NAME,)).fetchone()
    try:
        key = base64.b64decode(str(row[0]), validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise Unavailable("cursor: the file's cursor key is damaged (engine_meta.cursor_key)")
    return key
