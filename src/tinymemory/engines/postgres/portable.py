"""Export and import of portable records (api.records) on Postgres: exact rows out, exact rows in, derived
state rebuilt. The port of the SQLite engine's portable.py, rule for rule.

Export reads every version in rowid order (the order they were written) from one REPEATABLE READ,
read-only transaction on a connection of its own, so the engine's pool keeps serving writes meanwhile,
unseen; forgotten versions leave as tombstones. Import writes each version's row as it was (id, content
key, generation, valid times, forgotten_at) inside the caller's write transaction, which holds the
batch's tenant locks and admits exactly those tenants, and rebuilds what derives from it as the store
does: tags, evidence, relations, the tsvector and its per-namespace statistics, the neighbouring-turn
links of threads, and the vector when the record carries one of this engine's embedder. Forgotten
versions are not indexed and get no vector.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, cast

import numpy as np
import psycopg
from psycopg.rows import dict_row

from tinymemory.api.records import ImportResult, StoredRecord, StoredVector, second_active, tombstone
from tinymemory.engines.postgres import db, lexstats, tenancy, threads
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.store import _write_relations
from tinymemory.engines.postgres.where import ACTIVE
from tinymemory.engines.rows import ITEM_SELECT, decode_item, record_values, vector_fits
from tinymemory.engines.versions import stored_precision
from tinymemory.retrieval.text import Analyzer

PAGE = 500  # rows per read while exporting
EXPORT = "export"
IMPORT = "import"

_SELECT = f"SELECT {ITEM_SELECT}, i.ckey, i.generation{{vec}} FROM items i{{join}}"
_PAGE = " WHERE i.rowid > %s ORDER BY i.rowid LIMIT %s"
_WITH_VECTORS = (
    _SELECT.format(
        vec=", v.embedder, v.dim, v.vec::real[] AS vec", join=" LEFT JOIN vectors v ON v.item_rowid = i.rowid"
    )
    + _PAGE
)
_WITHOUT_VECTORS = _SELECT.format(vec="", join="") + _PAGE


def tenants_of(records: Iterable[StoredRecord]) -> frozenset[str]:
    """The tenants an import of `records` writes: the ones its transaction locks and admits."""
    return tenancy.of_namespaces(r.item.meta.namespace for r in records)


# -- export ---------------------------------------------------------------------------------------------


def _record(row: dict[str, Any], vectors: bool) -> StoredRecord:
    vector = None
    if vectors and row["vec"] is not None:
        values = np.asarray(row["vec"], dtype=np.float32)  # real[]: exact float32 values, any driver
        vector = StoredVector(str(row["embedder"]), int(row["dim"]), tuple(values.tolist()))
    return tombstone(
        StoredRecord(decode_item(cast(Any, row)), str(row["ckey"]), int(row["generation"]), vector)
    )


async def read_page(conn: Conn, after: int, vectors: bool) -> list[tuple[int, StoredRecord]]:
    """(rowid, record) of the next `PAGE` versions written after rowid `after`, in rowid order; the
    caller holds the read transaction."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_WITH_VECTORS if vectors else _WITHOUT_VECTORS, (after, PAGE))
        return [(int(row["rowid"]), _record(row, vectors)) for row in await cur.fetchall()]


async def export_records(dsn: str, vectors: bool) -> AsyncIterator[StoredRecord]:
    """Every version of the database at `dsn`, page by page, from one snapshot: a REPEATABLE READ,
    read-only transaction admitted to every tenant, on a connection outside the engine's pool."""
    conn = await db.connect(EXPORT, dsn)
    try:
        try:
            async with conn.transaction():
                await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                await conn.execute(
                    "SELECT set_config('tinymemory.tenants', %s, true)", (tenancy.setting(None),)
                )
                after = 0
                while True:
                    page = await read_page(conn, after, vectors)
                    for _, record in page:
                        yield record
                    if len(page) < PAGE:
                        return
                    after = page[-1][0]
        except psycopg.Error as exc:
            raise db.database_error(EXPORT, exc) from exc
    finally:
        await conn.close()


# -- import ---------------------------------------------------------------------------------------------


def _key(record: StoredRecord) -> tuple[str, str]:
    """What makes a version present: its id within its tenant (ids are unique per tenant, schema.py)."""
    return tenancy.tenant_of(record.item.meta.namespace), record.id


async def _present(conn: Conn, records: Sequence[StoredRecord]) -> set[tuple[str, str]]:
    cur = await conn.execute(
        "SELECT tenant, id FROM items WHERE id = ANY(%s::text[])", ([r.id for r in records],)
    )
    return {(str(r[0]), str(r[1])) for r in await cur.fetchall()}


def _values(record: StoredRecord) -> dict[str, Any]:
    """The row's columns, exactly as the record has them, and its tenant."""
    return {**record_values(record), "tenant": tenancy.tenant_of(record.item.meta.namespace)}


async def _refuse_second_active(conn: Conn, record: StoredRecord) -> None:
    """An active version whose content already has another active version here would break the store's
    one-active-version-per-content rule (a replay would pick either): refused, naming both."""
    item = record.item
    if item.valid_to is not None or item.forgotten_at is not None:
        return
    cur = await conn.execute(
        f"SELECT id FROM items WHERE ckey = %s AND tenant = %s AND {ACTIVE} LIMIT 1",
        (record.content_key, _key(record)[0]),
    )
    other = await cur.fetchone()
    if other is not None:
        raise second_active(item.id, str(other[0]))


async def _insert(
    conn: Conn,
    record: StoredRecord,
    analyzer: Analyzer,
    space: tuple[str, int] | None,
    deltas: lexstats.Deltas,
) -> int | None:
    """One version's row and everything derived from it except thread links; returns its rowid, or None
    when its tenant already holds its id (then skipped)."""
    item, meta = record.item, record.item.meta
    values = _values(record)
    forgotten = item.forgotten_at is not None
    indexed: dict[str, Any] = {}
    if not forgotten:
        body = item.text if not meta.summary else f"{item.text}\n{meta.summary}"
        indexed = lexstats.index_values(analyzer.index_text(meta.title or ""), analyzer.index_text(body), "")
        values.update(indexed)
    cols = ", ".join(values)
    marks = ", ".join("%s::tsvector" if c == "tsv" else "%s" for c in values)
    cur = await conn.execute(
        f"INSERT INTO items ({cols}) VALUES ({marks}) ON CONFLICT (id, tenant) DO NOTHING RETURNING rowid",
        tuple(values.values()),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    rowid, tenant = int(row[0]), values["tenant"]
    if meta.tags:
        await conn.execute(
            "INSERT INTO item_tags (tenant, tag, item_rowid) SELECT %s, t, %s FROM unnest(%s::text[]) t"
            " ON CONFLICT DO NOTHING",
            (tenant, rowid, list(meta.tags)),
        )
    if meta.evidence:
        await conn.execute(
            "INSERT INTO item_evidence (tenant, cites, item_rowid) SELECT %s, e, %s FROM unnest(%s::text[]) e"
            " ON CONFLICT DO NOTHING",
            (tenant, rowid, list(meta.evidence)),
        )
    await _write_relations(conn, tenant, rowid, meta.relations)
    if forgotten:
        return rowid
    lexstats.count_new(deltas, str(meta.namespace), indexed)
    vec = record.vector
    if vec is not None and vector_fits(vec, space):
        await conn.execute(
            "INSERT INTO vectors (item_rowid, tenant, embedder, dim, vec) VALUES (%s, %s, %s, %s, %s)",
            (rowid, tenant, vec.embedder, vec.dim, stored_precision(vec.values)),
        )
    return rowid


async def _link_turns(conn: Conn, deltas: lexstats.Deltas, rowids: Sequence[int]) -> None:
    """Each active turn among `rowids`, and each active turn beside one, indexes the words of the
    active turns now before and after it in its thread (what storing them one by one would give)."""
    if not rowids:
        return
    cur = await conn.execute(
        f"SELECT rowid FROM items WHERE rowid = ANY(%s::bigint[]) AND thread_id IS NOT NULL AND {ACTIVE}",
        (list(rowids),),
    )
    turns = [int(r[0]) for r in await cur.fetchall()]
    if not turns:
        return
    for rowid in sorted(set(turns) | await threads.neighbours_of(conn, turns)):
        near = sorted(await threads.neighbours_of(conn, [rowid]))  # the turn before, then the one after
        bodies = [await lexstats.body_of(conn, n) for n in near]
        words = " ".join(w for w in bodies if w)

        async def replace(_old: str, words: str = words) -> str:
            return words

        await lexstats.set_context(conn, deltas, rowid, replace)


async def import_batch(
    conn: Conn,
    records: Sequence[StoredRecord],
    analyzer: Analyzer,
    space: tuple[str, int] | None,
    context: bool,
) -> ImportResult:
    """Write the records not yet present, in order, inside the caller's write transaction (which holds
    the locks of `tenants_of(records)` and admits those tenants).

    `space` is the engine's embedder (name, dim): a record's vector is kept only when it matches, so
    every other row is left for re-embedding. With `context`, thread turns are linked.
    """
    present = await _present(conn, records)
    deltas = lexstats.Deltas()
    written: list[int] = []
    skipped = 0
    for record in records:
        if _key(record) in present:
            skipped += 1
            continue
        present.add(_key(record))
        record = tombstone(record)
        await _refuse_second_active(conn, record)
        rowid = await _insert(conn, record, analyzer, space, deltas)
        if rowid is None:
            skipped += 1
            continue
        written.append(rowid)
    if context:
        await _link_turns(conn, deltas, written)
    await deltas.flush(conn)
    return ImportResult(imported=len(written), skipped=skipped)
