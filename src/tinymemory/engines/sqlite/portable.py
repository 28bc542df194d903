"""Export and import of portable records (api.records): exact rows out, exact rows in, derived state rebuilt.

Export reads every version in rowid order (the order they were written) from one read transaction, on a
connection and thread of its own so that the engine keeps writing meanwhile; forgotten versions leave
as tombstones. Import writes each version's row as it was (id, content key, generation, valid times,
forgotten_at) and rebuilds what derives from it as a store would: tags, evidence, relations, the lexical
index and its per-namespace statistics, the neighbouring-turn links of threads, and the vector when the
record carries one of this engine's embedder. Forgotten versions are not indexed and get no vector.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

import numpy as np

from tinymemory.api.errors import TinyMemoryError
from tinymemory.api.records import ImportResult, StoredRecord, StoredVector, second_active, tombstone
from tinymemory.engines.rows import ITEM_SELECT, record_values, vector_fits
from tinymemory.engines.sqlite import db, lexstats, threads
from tinymemory.engines.sqlite.rows import decode_item
from tinymemory.engines.sqlite.store import stored_key, write_side_rows
from tinymemory.engines.sqlite.vectors import from_blob, to_blob
from tinymemory.engines.sqlite.where import ACTIVE
from tinymemory.retrieval.text import Analyzer

T = TypeVar("T")
PAGE = 500  # rows per read while exporting
EXPORT = "export"
IMPORT = "import"

_SELECT = f"SELECT {ITEM_SELECT}, i.ckey, i.generation{{vec}} FROM items i{{join}}"
_WITH_VECTORS = _SELECT.format(
    vec=", v.embedder, v.dim, v.vec", join=" LEFT JOIN vectors v ON v.item_rowid = i.rowid"
)
_WITHOUT_VECTORS = _SELECT.format(vec="", join="")


# -- export ---------------------------------------------------------------------------------------------


def _record(row: sqlite3.Row, vectors: bool) -> StoredRecord:
    vector = None
    if vectors and row["vec"] is not None:
        values = from_blob(row["vec"], int(row["dim"]))
        vector = StoredVector(str(row["embedder"]), int(row["dim"]), tuple(values.tolist()))
    key = row["ckey"]  # 32 bytes since schema 9
    ckey = key.hex() if isinstance(key, bytes) else str(key)
    return tombstone(StoredRecord(decode_item(row), ckey, int(row["generation"]), vector))


def read_page(
    conn: sqlite3.Connection, after: int, vectors: bool, limit: int | None = PAGE
) -> list[tuple[int, StoredRecord]]:
    """(rowid, record) of the versions written after rowid `after`, in rowid order (None: no limit); the
    caller holds the read transaction."""
    sql = (_WITH_VECTORS if vectors else _WITHOUT_VECTORS) + " WHERE i.rowid > ? ORDER BY i.rowid LIMIT ?"
    rows = conn.execute(sql, (after, -1 if limit is None else limit))
    return [(int(row["rowid"]), _record(row, vectors)) for row in rows]


def read_all(conn: sqlite3.Connection, vectors: bool) -> list[StoredRecord]:
    """Every version in one read transaction (an in-memory database: a second connection cannot see it)."""
    return [record for _, record in db.in_read(conn, lambda r: read_page(r, 0, vectors, None))]


async def export_file(path: str, vectors: bool) -> AsyncIterator[StoredRecord]:
    """Every version of the file at `path`, page by page, from one snapshot: a read transaction held on
    a connection and thread of its own, so the engine's writes go on meanwhile, unseen."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tinymemory-export")
    loop = asyncio.get_running_loop()
    opened: list[sqlite3.Connection] = []

    async def run(fn: Callable[[], T]) -> T:
        def call() -> T:
            try:
                return fn()
            except TinyMemoryError:
                raise
            except db.ERRORS as exc:
                raise db.database_error(EXPORT, exc) from exc

        return await loop.run_in_executor(pool, call)

    def begin() -> sqlite3.Connection:
        conn = db.connect(path)
        opened.append(conn)
        conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read below
        return conn

    def finish() -> None:
        for conn in opened:
            try:
                if conn.in_transaction:
                    conn.execute("COMMIT")  # a read's: it fails only on a damaged file
            finally:
                conn.close()

    try:
        conn = await run(begin)
        after = 0
        while True:
            page = await run(partial(read_page, conn, after, vectors))
            for _, record in page:
                yield record
            if len(page) < PAGE:
                return
            after = page[-1][0]
    finally:
        try:
            await run(finish)
        finally:
            pool.shutdown(wait=False)


# -- import ---------------------------------------------------------------------------------------------


def _present(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    rows = conn.execute(
        "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)
    )
    return {str(r[0]) for r in rows}


def _refuse_second_active(conn: sqlite3.Connection, record: StoredRecord) -> None:
    """An active version whose content already has another active version here would break the store's
    one-active-version-per-content rule (a replay would pick either): refused, naming both."""
    item = record.item
    if item.valid_to is not None or item.forgotten_at is not None:
        return
    other = conn.execute(
        f"SELECT id FROM items WHERE ckey = ? AND {ACTIVE} LIMIT 1", (stored_key(record.content_key),)
    ).fetchone()
    if other is not None:
        raise second_active(item.id, str(other[0]))


def _insert(
    conn: sqlite3.Connection,
    record: StoredRecord,
    analyzer: Analyzer,
    space: tuple[str, int] | None,
    deltas: lexstats.Deltas,
) -> int:
    """One version's row and everything derived from it except thread links; returns its rowid."""
    item, meta = record.item, record.item.meta
    values = record_values(record)
    values["ckey"] = stored_key(record.content_key)
    forgotten = item.forgotten_at is not None
    columns: tuple[str, str, str] = ("", "", "")
    if not forgotten:
        body = item.text if not meta.summary else f"{item.text}\n{meta.summary}"
        columns = (analyzer.index_text(meta.title or ""), analyzer.index_text(body), "")
        posted = lexstats.postings_of(*columns)
        values["lex_len"] = lexstats.length(posted)
    names = ", ".join(values)
    marks = ", ".join("?" * len(values))
    rowid = conn.execute(f"INSERT INTO items ({names}) VALUES ({marks})", tuple(values.values())).lastrowid
    assert rowid is not None
    write_side_rows(conn, rowid, meta)
    if forgotten:
        return rowid
    lexstats.index(conn, deltas, rowid, str(meta.namespace), *columns, posted)
    vec = record.vector
    if vec is not None and vector_fits(vec, space):
        conn.execute(
            "INSERT INTO vectors (item_rowid, embedder, dim, vec) VALUES (?, ?, ?, ?)",
            (rowid, vec.embedder, vec.dim, to_blob(np.asarray(vec.values, dtype=np.float32))),
        )
    return rowid


def _replace(words: str, _old: str) -> str:
    return words


def _link_turns(conn: sqlite3.Connection, deltas: lexstats.Deltas, rowids: Sequence[int]) -> None:
    """Each active turn among `rowids`, and each active turn beside one, indexes the words of the
    active turns now before and after it in its thread (what storing them one by one would give)."""
    turns = [
        r
        for r in rowids
        if conn.execute(
            f"SELECT 1 FROM items WHERE rowid = ? AND thread_id IS NOT NULL AND {ACTIVE}", (r,)
        ).fetchone()
    ]
    if not turns:
        return
    for rowid in sorted(set(turns) | threads.neighbours_of(conn, turns)):
        near = sorted(threads.neighbours_of(conn, [rowid]))  # the turn before, then the one after
        words = " ".join(w for w in (threads.body(conn, n) for n in near) if w)
        lexstats.set_context(conn, deltas, rowid, partial(_replace, words))


def import_batch(
    conn: sqlite3.Connection,
    records: Sequence[StoredRecord],
    analyzer: Analyzer,
    space: tuple[str, int] | None,
    context: bool,
) -> ImportResult:
    """Write the records not yet present, in order, inside the caller's transaction.

    `space` is the engine's embedder (name, dim): a record's vector is kept only when it matches, so
    every other row is left for `tinymemory embedder reembed`. With `context`, thread turns are linked.
    """
    present = _present(conn, [r.id for r in records])
    deltas = lexstats.Deltas()
    written: list[int] = []
    skipped = 0
    for record in records:
        if record.id in present:
            skipped += 1
            continue
        present.add(record.id)
        record = tombstone(record)
        _refuse_second_active(conn, record)
        written.append(_insert(conn, record, analyzer, space, deltas))
    if context:
        _link_turns(conn, deltas, written)
    deltas.flush(conn)
    return ImportResult(imported=len(written), skipped=skipped)
