"""The engine's threads and connections: one writer, and a few readers that never wait for it.

sqlite3 calls block, so each runs on a thread of its own, not on the event loop (but for a small fetch on
the calling thread's own connection, which never sleeps on a lock: `open_here`). Writes run on one
thread owning the writing connection (writers serialise in SQLite anyway, and one thread keeps their
order). Reads run on a small pool of reader threads, each with its own WAL connection: in WAL mode a
reader sees the last commit made before its read transaction began and neither blocks nor waits for
the writer, so reads proceed side by side with each other and with writes. A private `:memory:`
database cannot be opened twice, so there (and with `readers=0`) reads share the writer's thread.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from tinymemory.api.errors import InvalidRequest, Unavailable
from tinymemory.engines.sqlite import db

T = TypeVar("T")
DEFAULT_READERS = 2
MAX_READERS = 64
# Bytes of the file a reader maps instead of copying pages through read() (SQLite caps it at its own
# compiled maximum). Whole-store reads touch scattered rows of a large file: at 100,000 items the
# visibility check of 52 candidates took 0.075 ms mapped, 0.115 ms read. Pages stay the file's own,
# shared with every process (nothing is copied that a purge's overwrite would miss).
READER_MMAP_BYTES = 1 << 31


SYNC_ENV = "TINYMEMORY_SQLITE_SYNC"


def check_durability(durability: object) -> str:
    """The engine's durability: the argument, else $TINYMEMORY_SQLITE_SYNC, else "full" (see db.py)."""
    field = "`durability`"
    if durability is None:
        durability = os.environ.get(SYNC_ENV, "").strip().lower() or db.DEFAULT_DURABILITY
        field = SYNC_ENV
    if not isinstance(durability, str) or durability not in db.DURABILITY:
        choices = " or ".join(repr(d) for d in db.DURABILITY)
        raise InvalidRequest(f"open: {field} must be {choices}, got {durability!r}")
    return durability


def check_readers(readers: object) -> int:
    if isinstance(readers, bool) or not isinstance(readers, int) or not 0 <= readers <= MAX_READERS:
        raise InvalidRequest(
            f"open: `readers` must be an integer between 0 and {MAX_READERS}, got {readers!r}"
        )
    return readers


def mapped(op: str, exc: BaseException) -> BaseException:
    """A database error becomes Unavailable naming the operation; our own errors pass as they are."""
    if isinstance(exc, db.ERRORS):
        return db.database_error(op, exc)
    return exc


def _guarded(op: str, fn: Callable[[], T]) -> T:
    try:
        return fn()
    except db.ERRORS as exc:  # our own errors pass as they are
        raise db.database_error(op, exc) from exc


class Connections:
    """One writer thread and connection, and `readers` reader threads each with its own connection.

    Connections open lazily on their own thread; the writer's opens first (it sets WAL and migrates the
    schema), so a reader never sees a file without its tables. `close` closes every one of them.
    """

    def __init__(self, path: str, readers: int, durability: str) -> None:
        self.path = path
        self.durability = durability
        self._writer_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinymemory-sqlite")
        self._writer: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()  # one user of the writing connection at a time (`write_here`)
        self.readers = 0 if path == ":memory:" else readers
        self._reader_pool = (
            ThreadPoolExecutor(max_workers=self.readers, thread_name_prefix="tinymemory-sqlite-read")
            if self.readers
            else None
        )
        self._local = threading.local()
        self._lock = threading.Lock()
        self._reader_conns: list[sqlite3.Connection] = []
        self._ready = False  # the writer has opened (and migrated) the file
        self.closed = False

    def _writer_conn(self) -> sqlite3.Connection:
        if self._writer is None:
            self._writer = db.connect(self.path, self.durability)
            self._ready = True
        return self._writer

    def _reader_conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = db.connect_reader(self.path)
            if self.path != ":memory:":
                conn.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}").close()
            with self._lock:
                self._reader_conns.append(conn)
            self._local.conn = conn
        return conn

    def submit_write(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """Queue `fn` on the writer thread (in the order submitted) and return its future."""
        if self.closed:
            raise Unavailable(f"{op}: the engine is closed")
        try:
            return self._writer_pool.submit(_guarded, op, lambda: self._with_writer(fn))
        except RuntimeError:  # the pool was shut down meanwhile
            raise Unavailable(f"{op}: the engine is closed") from None

    def _with_writer(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._write_lock:
            return fn(self._writer_conn())

    def write_here(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` with the writing connection on the calling thread, under the lock every writer-thread
        job holds (one writer at a time, as on the writer thread); for a caller that may block
        (api.blocking), sparing the hand-off to the writer thread and back."""
        with self._write_lock:
            if self.closed:  # checked under the lock: a close's shut_writer may have run already
                raise Unavailable(f"{op}: the engine is closed")
            return _guarded(op, lambda: fn(self._writer_conn()))

    async def write(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` with the writing connection on the writer thread (writes, and anything that may write)."""
        return await asyncio.wrap_future(self.submit_write(op, fn))

    async def read(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` with a reading connection on a reader thread; the caller opens the read transaction."""
        if self._reader_pool is None:
            return await self.write(op, fn)
        if not self._ready:
            await self.write(op, lambda c: None)
        if self.closed:
            raise Unavailable(f"{op}: the engine is closed")
        try:
            job = self._reader_pool.submit(_guarded, op, lambda: fn(self._reader_conn()))
        except RuntimeError:
            raise Unavailable(f"{op}: the engine is closed") from None
        return await asyncio.wrap_future(job)

    def here(self) -> sqlite3.Connection | None:
        """The calling thread's own reading connection (`open_here`), or None before it is opened."""
        conn: sqlite3.Connection | None = getattr(self._local, "here", None)
        return conn

    async def open_here(self) -> sqlite3.Connection | None:
        """Open the calling thread's own reading connection, on a helper thread (opening may wait), for a
        small read run where it is called (engine.py). It has no busy timeout: a read on it never sleeps
        on a lock, SQLite refuses it at once (`db.is_busy`) and the caller hands it to a reader thread.
        None where reads share the writer's connection."""
        if self._reader_pool is None or self.closed:
            return None
        if not self._ready:
            await self.write("open", lambda c: None)

        def connect() -> sqlite3.Connection:
            conn = db.connect_reader(self.path)
            conn.execute("PRAGMA busy_timeout = 0")
            return conn

        conn = await asyncio.to_thread(connect)
        with self._lock:
            self._reader_conns.append(conn)  # closed with the readers'
        if self.closed:
            return None
        self._local.here = conn
        return conn

    async def close(self) -> None:
        """Let queued work finish, then close every connection and stop every thread."""
        if self.closed:
            return
        self.closed = True

        def shut_writer() -> None:
            with self._write_lock:
                if self._writer is not None:
                    self._writer.close()
                    self._writer = None

        # queued after every write submitted before, so those (and their commits) finish first
        await asyncio.wrap_future(self._writer_pool.submit(shut_writer))
        await asyncio.to_thread(self._shut_threads)

    def _shut_threads(self) -> None:
        self._writer_pool.shutdown(wait=True)
        if self._reader_pool is not None:
            self._reader_pool.shutdown(wait=True)
        with self._lock:
            conns, self._reader_conns = self._reader_conns, []
        for conn in conns:
            conn.close()
