"""The writing process keeps the matrix copy (vecfile.py) up to date, so a reader finds it already there.

A copy made only by a reader that scanned the file leaves the first reader of every new or purged file
to decode every float16 blob of the table (about 2 s at 100,000 vectors, against 50 ms for a warm
fetch: bench/oneshot.py). The process that stored the vectors has just paid for them, so it writes the
copy as well: it maps the copy of the file's current epoch when there is a valid one, reads from the
table only the rows stored past it, and publishes the old rows and the new ones as a new copy (a
temporary file renamed into place; the epoch checked after the rename, see `vecfile.publish`).

When. After a write, on a thread of its own, once the rows this process stored since reach what a
reader's own save waits for (`vectors.SAVE_MIN_ROWS`, and a tenth of the copy: a large copy is rewritten
whole, so it is not rewritten every few thousand rows); at `close()` when the rows past the copy reach
`CLOSE_MIN_TAIL` (and a hundredth of the copy), or after a purge or a re-embed (they delete the copy);
and after `tinymemory db index` whatever the tail. A file of fewer than `MIN_ROWS` vectors gets none: a
reader loads it from the table at once. Rows past the copy are read from the table by every reader (a
few milliseconds a thousand rows), so a copy a little behind is still a valid one.

Forgotten means forgotten: the rows come from one read transaction of the file, at the epoch read in
it; a purge moves the epoch and deletes every copy, so a copy written from a snapshot older than a purge
is deleted by the purge or by the check after the rename.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tinymemory.engines.paths import in_memory
from tinymemory.engines.sqlite import vecfile, vectors
from tinymemory.engines.sqlite.vectors import Floats, Ints

_log = logging.getLogger(__name__)

# Vectors a file holds before its writer keeps a copy of them (a reader's own rule).
MIN_ROWS = vectors.SAVE_MIN_ROWS
# Rows past the copy that `close()` brings into it: a reader decodes them in about 7 ms a thousand.
CLOSE_MIN_TAIL = 1_000
# ... and at least a hundredth of the copy (a copy of 1M rows is 1 GB to rewrite).
CLOSE_SHARE = 100


def _open(db_path: str) -> sqlite3.Connection:
    return sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)


def bring_up_to_date(db_path: str, embedder: str, dim: int, min_tail: int) -> int | None:
    """Publish a copy of every vector of this embedder in the file, when at least `min_tail` rows lie
    past the current copy (every row, without one) and the file holds at least `MIN_ROWS`; the rows the
    new copy holds, or None when none was written (not due, or a purge or re-embed raced it)."""
    conn = _open(db_path)
    try:
        conn.execute("BEGIN")  # one snapshot: the epoch and every row read below agree
        epoch = vectors.read_epoch(conn)
        path = vecfile.path_for(db_path, embedder, dim, epoch)
        rows, last = vecfile.extent(path)  # by the header alone: most closes stop here
        if not _due(vectors.count_after(conn, embedder, dim, last), rows, min_tail):
            return None
        old = vectors.mapped_copy(conn, embedder, dim, epoch)
        based = 0 if old is None else len(old.rowids)
        last = 0 if old is None else int(old.rowids[-1])
        tail = vectors.count_after(conn, embedder, dim, last)
        if not _due(tail, based, min_tail):
            return None

        def parts() -> Iterator[tuple[Ints, Floats]]:
            if old is not None:
                yield old.rowids, old.rows
            after = last
            while True:
                rows = vectors.rows_after(conn, embedder, dim, after, vectors.REFRESH_CHUNK)
                if not rows:
                    return
                ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                yield ids, vectors.from_blobs([r[1] for r in rows], dim)
                after = int(ids[-1])

        saved = vecfile.publish(db_path, parts(), embedder, dim, epoch, lambda: vectors.epoch_now(db_path))
        return None if saved is None else based + tail
    finally:
        conn.close()


def _due(tail: int, based: int, min_tail: int) -> bool:
    return tail > 0 and tail >= min_tail and based + tail >= MIN_ROWS


def copy_rows(db_path: str, embedder: str, dim: int) -> int:
    """Rows in this embedder's largest copy beside the file, by its header alone (0: none)."""
    best = 0
    prefix = vecfile.path_for(db_path, embedder, dim, 0).name[: -len("0")]
    for path in vecfile.files(db_path):
        if path.name.startswith(prefix) and not path.name.endswith(".tmp"):
            best = max(best, vecfile.extent(path)[0])
    return best


class CopyKeeper:
    """One engine's part in keeping the copy: counts the rows it stores and writes the copy when due."""

    @classmethod
    def for_file(cls, db_path: str, embedder: str, dim: int) -> CopyKeeper | None:
        """A keeper for a database file; None in memory (nothing to keep beside it)."""
        return None if in_memory(db_path) else cls(db_path, embedder, dim)

    def __init__(self, db_path: str, embedder: str, dim: int) -> None:
        self.db_path, self.embedder, self.dim = db_path, embedder, dim
        self._lock = threading.Lock()
        self._stored = 0  # rows this engine stored since it last brought the copy up to date
        self._known: int | None = None  # rows of the copy as last seen (None: not looked at yet)
        self._changed = False  # a purge or a re-embed deleted the copy: close() writes a new one
        self.worker: threading.Thread | None = None  # the last background write (tests wait for it)

    def stored(self, rows: int) -> None:
        """After a write of `rows` items: start a background write once enough have gathered."""
        with self._lock:
            self._stored += rows
            if self._known is None:
                self._known = copy_rows(self.db_path, self.embedder, self.dim)
            due = max(vectors.SAVE_MIN_ROWS, self._known // vectors.SAVE_SHARE)
            if self._stored < due or (self.worker is not None and self.worker.is_alive()):
                return
            self._stored = 0
            self.worker = threading.Thread(
                target=self._run, args=(due,), name="tinymemory-vectors-copy", daemon=False
            )
            self.worker.start()

    def changed(self) -> None:
        """A purge or a re-embed: every copy is gone; `close()` writes one of the new epoch."""
        with self._lock:
            self._changed = True
            self._known = 0

    def now(self, min_tail: int = 1) -> int | None:
        """Bring the copy up to date in the foreground (`tinymemory db index`): waits for a write."""
        self._wait()
        return self._run(min_tail)

    def close(self) -> int | None:
        """At the engine's close: wait for a background write, then write the copy if it is due."""
        self._wait()
        with self._lock:
            if not (self._changed or self._stored):
                return None
            known = self._known or 0
            self._stored, self._changed = 0, False
        return self._run(max(CLOSE_MIN_TAIL, known // CLOSE_SHARE))

    def _wait(self) -> None:
        worker = self.worker
        if worker is not None:
            worker.join()

    def _run(self, min_tail: int) -> int | None:
        try:
            rows = bring_up_to_date(self.db_path, self.embedder, self.dim, min_tail)
        except (OSError, sqlite3.Error, ValueError) as exc:  # a cache: readers go on from the table
            _log.info("sqlite: could not write the vector copy beside %s (%s)", self.db_path, exc)
            return None
        if rows is not None:
            with self._lock:
                self._known = rows
        return rows
