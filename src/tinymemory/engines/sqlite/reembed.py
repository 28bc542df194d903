"""Re-embedding: give every stale item (stale.py) a vector from the engine's current embedder.

Used after a switch of embedder, or for a file filled lexical-only. It works in batches: each batch is
read, embedded outside the write lock, and written in its own transaction, so a run that is killed
keeps every batch it committed and the next run continues with what is still stale (resumable), and a
run with nothing stale writes nothing (replay-safe). A vector is written only if its item still exists
and is not forgotten at commit time, so a concurrent forget or purge never gets a vector back. Each
batch bumps the file's vectors epoch, so every engine on the file, in any process, reloads its matrix.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from tinymemory.api.errors import InvalidRequest, Unavailable
from tinymemory.engines.sqlite import db, stale
from tinymemory.engines.sqlite.vectors import Floats, VectorMatrix, bump_epoch, to_blob
from tinymemory.engines.versions import embed_checked
from tinymemory.retrieval.embedders.base import Embedder

T = TypeVar("T")
MAX_BATCH = 10_000
_OP = "reembed"

Progress = Callable[[int, int], None]  # (items re-embedded so far, items to do), after each batch


class RunOnDb(Protocol):
    """The engine's way of running a function on its database thread (SqliteEngine._run)."""

    def __call__(self, op: str, fn: Callable[[sqlite3.Connection], T], /) -> Awaitable[T]: ...


@dataclass(frozen=True, slots=True)
class ReembedResult:
    embedder: str
    stale_before: int  # items without a vector of this embedder when the run began
    reembedded: int  # vectors written by this run
    batches: int  # transactions committed


def check_batch(batch: object) -> int:
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise InvalidRequest(f"{_OP}: `batch` must be an integer between 1 and {MAX_BATCH}, got {batch!r}")
    return batch


def _write(conn: sqlite3.Connection, name: str, dim: int, rows: list[tuple[int, Floats]]) -> int:
    written = 0
    for rowid, vec in rows:
        cur = conn.execute(
            "INSERT OR REPLACE INTO vectors (item_rowid, embedder, dim, vec)"
            " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM items WHERE rowid = ? AND forgotten_at IS NULL)",
            (rowid, name, dim, to_blob(vec), rowid),
        )
        written += cur.rowcount
    bump_epoch(conn)
    return written


async def reembed_items(
    run: RunOnDb,
    embedder: Embedder | None,
    matrix: VectorMatrix | None,
    batch: int,
    progress: Progress | None = None,
) -> ReembedResult:
    """Embed every stale item with `embedder`, `batch` items per transaction; see the module docstring.

    `progress` runs after each committed batch; if it raises, the run stops there and what was
    committed stays (a later run resumes).
    """
    size = check_batch(batch)
    if embedder is None or matrix is None:
        raise Unavailable(
            f"{_OP}: this engine has no embedder (TINYMEMORY_EMBEDDER is none, or the chosen embedder cannot "
            "run here), so there is nothing to embed with"
        )
    name, dim = embedder.name, embedder.dim
    before = await run(_OP, lambda c: db.in_read(c, lambda r: stale.stale_count(r, name, dim)))
    total, done, batches, after = before, 0, 0, 0
    while True:

        def read(conn: sqlite3.Connection, after: int = after) -> list[stale.Stale]:
            return db.in_read(conn, lambda r: stale.stale_batch(r, name, dim, after, size))

        todo = await run(_OP, read)
        if not todo:
            break
        block = await embed_checked(_OP, embedder, [s.text for s in todo])
        rows = [(s.rowid, block[i]) for i, s in enumerate(todo)]

        def commit(conn: sqlite3.Connection, rows: list[tuple[int, Floats]] = rows) -> int:
            written = db.in_write(conn, lambda w: _write(w, name, dim, rows))
            matrix.reset()  # old rowids changed: reload on the next semantic read
            return written

        done += await run(_OP, commit)
        batches += 1
        after = todo[-1].rowid
        total = max(total, done)  # items another writer left stale meanwhile are done too
        if progress is not None:
            progress(done, total)
    return ReembedResult(embedder=name, stale_before=before, reembedded=done, batches=batches)
