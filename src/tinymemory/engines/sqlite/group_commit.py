"""Group commit: stores that arrive while a commit is in flight are written together, in one transaction.

A commit's cost is mostly its sync (with durability "full", an fsync of the WAL), whatever it holds. So
instead of one transaction per store, each store joins a queue and asks the writer thread for a flush;
a flush takes every store queued so far (up to MAX_GROUP_ITEMS items) and writes them in one
transaction. Each caller is acknowledged only after that COMMIT returns, so every acknowledged write
has the durability of a commit of its own. A caller alone in the queue pays exactly what it paid before.

Callers stay independent: each is written inside a savepoint, so one caller's failure (a conflict, a
database error) is rolled back to its savepoint and raised to that caller only, while the others
commit. If the transaction itself fails (BEGIN or COMMIT), every caller is retried alone, in its own
transaction, and gets its own outcome.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime

from tinymemory.api.requests import StoreResult
from tinymemory.engines.sqlite import db
from tinymemory.engines.sqlite.connections import mapped
from tinymemory.engines.versions import Pending

MAX_GROUP_ITEMS = 10_000  # items per grouped transaction (a caller's batch is never split)
_SAVEPOINT = "tinymemory_caller"

Writer = Callable[[sqlite3.Connection, Sequence[Pending], datetime], list[StoreResult]]


@dataclass(eq=False)
class Request:
    """One caller's items, the instant that stamps them, and the future that acknowledges them."""

    op: str
    pending: Sequence[Pending]
    now: datetime
    done: Future[list[StoreResult]] = field(default_factory=Future)


class GroupCommit:
    """The queue of stores waiting for the writer thread, and the flush that writes them."""

    def __init__(self, write: Writer) -> None:
        self._write = write  # writes one caller's items inside an open transaction
        self._queue: deque[Request] = deque()
        self._lock = threading.Lock()
        self.groups = 0  # transactions that held more than one caller (for tests and diagnostics)

    def enqueue(self, op: str, pending: Sequence[Pending], now: datetime) -> Request:
        request = Request(op, pending, now)
        with self._lock:
            self._queue.append(request)
        return request

    def _take(self) -> list[Request]:
        taken: list[Request] = []
        size = 0
        with self._lock:
            while self._queue and (not taken or size + len(self._queue[0].pending) <= MAX_GROUP_ITEMS):
                request = self._queue.popleft()
                taken.append(request)
                size += len(request.pending)
        return taken

    def withdraw(self, request: Request, exc: BaseException) -> bool:
        """Take back a request no flush has taken yet, answering it with `exc`; False if one has (it
        will be answered by that flush)."""
        with self._lock:
            try:
                self._queue.remove(request)
            except ValueError:
                return False
        request.done.set_exception(exc)
        return True

    def flush(self, conn: sqlite3.Connection) -> None:
        """On the writer thread: write what is queued. Every enqueue is followed by one flush, so a
        request is always written by its own flush or by an earlier one that took it along."""
        batch = self._take()
        try:
            if len(batch) == 1:
                self._alone(conn, batch[0])
            elif batch:
                self.groups += 1
                self._grouped(conn, batch)
        except BaseException as exc:  # a defect or an interrupt: nobody taken may be left waiting
            for request in batch:
                if not request.done.done():
                    request.done.set_exception(mapped(request.op, exc))
            raise

    def _alone(self, conn: sqlite3.Connection, request: Request) -> None:
        try:
            result = db.in_write(conn, lambda w: self._write(w, request.pending, request.now))
        except Exception as exc:
            request.done.set_exception(mapped(request.op, exc))
        else:
            request.done.set_result(result)

    def _grouped(self, conn: sqlite3.Connection, batch: list[Request]) -> None:
        outcomes: list[list[StoreResult] | Exception] = []
        try:
            db.begin_write(conn)
        except Exception as exc:  # busy past the deadline: the same answer for everyone
            for request in batch:
                request.done.set_exception(mapped(request.op, exc))
            return
        try:
            for request in batch:
                outcomes.append(self._in_savepoint(conn, request))
            conn.execute("COMMIT")
        except Exception:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            finally:
                for request in batch:
                    self._alone(conn, request)
            return
        for request, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, Exception):
                request.done.set_exception(mapped(request.op, outcome))
            else:
                request.done.set_result(outcome)

    def _in_savepoint(self, conn: sqlite3.Connection, request: Request) -> list[StoreResult] | Exception:
        """One caller's writes; its failure rolls back its own writes only (raises if the transaction
        itself is gone, which sends the whole batch to the one-by-one path)."""
        conn.execute(f"SAVEPOINT {_SAVEPOINT}")
        try:
            result = self._write(conn, request.pending, request.now)
        except Exception as exc:
            conn.execute(f"ROLLBACK TO {_SAVEPOINT}")
            conn.execute(f"RELEASE {_SAVEPOINT}")
            return exc
        conn.execute(f"RELEASE {_SAVEPOINT}")
        return result

    def fail_queued(self, exc: BaseException) -> None:
        """Answer what is still queued (the engine is closing and nothing will flush it)."""
        with self._lock:
            left, self._queue = list(self._queue), deque()
        for request in left:
            if not request.done.done():
                request.done.set_exception(exc)
