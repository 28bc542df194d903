"""Connections, pragmas, transactions and what their errors become: the durability and multi-process
rules live here.

Durability is chosen per engine (see DURABILITY): "full" fsyncs the WAL at every commit, so an
acknowledged write survives a killed process, an OS crash and a power loss; "normal" (WAL with
synchronous=NORMAL) fsyncs only at checkpoints, so an acknowledged write survives a killed process but
the last commits before a power loss or an OS crash may be lost (the file is never corrupted).
"""

from __future__ import annotations

import random
import sqlite3
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tinymemory.api.errors import Unavailable
from tinymemory.engines.sqlite.schema import migrate

T = TypeVar("T")

BUSY_TIMEOUT_MS = 10_000
LOCK_DEADLINE_S = 60.0
# durability setting -> PRAGMA synchronous value (see the module docstring for what each risks)
DURABILITY = {"full": "FULL", "normal": "NORMAL"}
DEFAULT_DURABILITY = "full"
# SQLite's page cache per connection, in KiB (a negative cache_size is KiB). The writer and each reader
# keep their own, and readers hold copies of the same hot pages, so theirs are smaller: misses are
# served from the OS's cache of the file (at 100k items, 2 readers of 32 MB held about 60 MB more
# resident memory after 400 hybrid fetches than 2 of 8 MB, at about the same latency).
CACHE_KIB = 65_536
READER_CACHE_KIB = 16_384


# What a failed sqlite3 call can raise. SQLite's message may quote bytes of a damaged file (a schema
# entry's SQL); CPython cannot decode those, and raises UnicodeDecodeError in place of the real error.
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, UnicodeDecodeError)
# SQLite's primary result codes for a file that is not a sound database (a code's low byte is its kind),
# and a read past the end of the file: a page number the damage made up, or a truncated file
_DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
_SHORT_READ = sqlite3.SQLITE_IOERR_SHORT_READ
_UNDECODABLE_COLUMN = "Could not decode to UTF-8 column"
_BAD_HEADER = "unsupported file format"  # the header's format bytes: SQLite gives it no code of its own
RECOVERY = "restore a backup, or salvage what is readable with the sqlite3 shell's `.recover`"


class DamagedRow(sqlite3.DatabaseError):
    """A stored value that does not decode as tinymemory wrote it: the file was changed under the engine."""


def database_error(op: str, exc: Exception) -> Unavailable:
    """A failed sqlite3 call as Unavailable naming the operation; a damaged file says so, in words of
    its own rather than the bytes SQLite quotes from it."""
    # The failed call's frames hold its cursors; a cursor not finalized keeps its connection's file
    # descriptors open after `close()` (sqlite3_close_v2 waits for it) until the garbage collector
    # breaks the exception's cycle. A late close of that kind checkpoints a WAL into whatever file is
    # at the path by then (a good copy put back over a damaged one). Clearing the finished frames'
    # locals finalizes the cursors now; the traceback keeps its lines.
    _release_frames(exc)
    damage = _damage(exc)
    if damage is not None:
        out = Unavailable(f"{op}: the database file is damaged ({damage}); {RECOVERY}")
    else:
        out = Unavailable(f"{op}: database error ({exc})")
    out.__cause__ = exc
    return out


def _release_frames(exc: BaseException) -> None:
    """Clear the locals of the finished frames of `exc` and of the database errors it was raised from
    (only those: a frame clear() may touch is one a failed SQLite call left)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while isinstance(current, ERRORS) and id(current) not in seen:
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        current = current.__cause__ or current.__context__


def _damage(exc: Exception) -> str | None:
    """What is damaged, or None when the error is not about the file's bytes."""
    if isinstance(exc, DamagedRow):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):
        raw = exc.object if isinstance(exc.object, bytes) else b""
        return _printable(raw.decode("utf-8", "replace")) or "an undecodable error"
    if not isinstance(exc, sqlite3.Error):
        return None
    text = str(exc)
    if text.startswith(_UNDECODABLE_COLUMN):  # the module's own error; it quotes the stored text
        column = text[len(_UNDECODABLE_COLUMN) :].split(" with text ", 1)[0].strip()
        return f"a stored text is not valid UTF-8 (column {_printable(column)})"
    code = getattr(exc, "sqlite_errorcode", None)
    if (isinstance(code, int) and code & 0xFF in _DAMAGE_CODES) or text == _BAD_HEADER:
        return _printable(text)
    if code == _SHORT_READ:
        return "it is shorter than its pages say"
    return None


def _printable(message: str) -> str:
    """SQLite's message without the damaged bytes it quotes after " - " ("malformed database schema
    (items) - near ...: syntax error"), and with any unprintable character of a damaged name replaced."""
    head = message.split(" - ", 1)[0]
    return "".join(c if c.isprintable() and c != "\ufffd" else "?" for c in head)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused for a lock another connection holds (`database is locked` or busy)."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _open(path: str, cache_kib: int, setup: Callable[[sqlite3.Connection], None]) -> sqlite3.Connection:
    """A connection with the pragmas every one has, then `setup`'s. A connection whose setup fails is
    closed at once: one left to the garbage collector keeps the file's locks and shared memory in this
    process, and a file copied back over a damaged one would then be read through that stale state."""
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA cache_size = -{cache_kib}")
        setup(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def connect(path: str, durability: str = DEFAULT_DURABILITY) -> sqlite3.Connection:
    """The writing connection: WAL (readers never block the writer), the durability's sync level
    ("full": a commit survives power loss and SIGKILL) and a busy timeout; then migrate the schema."""

    def setup(conn: sqlite3.Connection) -> None:
        if path != ":memory:":
            retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        conn.execute(f"PRAGMA synchronous = {DURABILITY[durability]}")
        # deleted content is overwritten with zeros, so a purged memory's bytes leave the file
        conn.execute("PRAGMA secure_delete = ON")
        retry_busy(lambda: migrate(conn))

    return _open(path, CACHE_KIB, setup)


def connect_reader(path: str) -> sqlite3.Connection:
    """A reading connection to a file the writing connection has already opened (WAL, migrated):
    query_only, so a read can never take the write lock."""
    return _open(path, READER_CACHE_KIB, lambda conn: conn.execute("PRAGMA query_only = ON").close())


def retry_busy(fn: Callable[[], T], deadline_s: float = LOCK_DEADLINE_S) -> T:
    """Run `fn`, retrying with jittered backoff while another process holds the lock."""
    end = time.monotonic() + deadline_s
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= end:
                raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.25)


def begin_write(conn: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE: the write lock is taken up front, so a transaction never fails half-way on BUSY."""
    try:
        retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"))
    except sqlite3.OperationalError as exc:
        raise Unavailable(f"write: database is busy ({exc})") from None


def in_write(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """One IMMEDIATE transaction (see begin_write), committed when `fn` returns, rolled back if it raises."""
    begin_write(conn)
    try:
        result = fn(conn)
        conn.execute("COMMIT")
        return result
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def scrub_wal(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the file and truncate it, so the old page images it holds (a purged memory's
    text among them) are gone. False when another connection's open read kept some frames alive."""
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        return True
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return int(busy) == 0


def in_read(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """One read transaction: every query of a read sees the same snapshot."""
    conn.execute("BEGIN")
    try:
        return fn(conn)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def check_file(op: str, path: str) -> None:
    """SQLite's `quick_check` over the whole file, on a read-only connection: a page damaged in the
    middle of the file, which reading the header and counting items may never touch, is found here
    and raised as the damaged-file error. It reads every page (about a second per GB)."""
    if path == ":memory:" or not Path(path).is_file():
        return
    try:
        conn = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
        try:
            found = [str(row[0]) for row in conn.execute("PRAGMA quick_check(1)")]
        finally:
            conn.close()
    except ERRORS as exc:
        raise database_error(op, exc) from None
    if found != ["ok"]:
        # SQLite heads its first finding with a "*** in database main ***" line
        lines = [line for line in (found[0] if found else "").splitlines() if not line.startswith("***")]
        problem = _printable(" ".join(lines)) or "SQLite's integrity check failed"
        raise Unavailable(f"{op}: the database file is damaged ({problem}); {RECOVERY}")


def schema_of_file(op: str, path: str) -> int | None:
    """A file's schema version, None when there is no file; reading it writes nothing (no migration,
    no WAL: a plain connection that only reads the header's user_version)."""
    if path == ":memory:" or not Path(path).is_file():
        return None
    try:
        conn = sqlite3.connect(path)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except ERRORS as exc:
        raise database_error(op, exc) from None
