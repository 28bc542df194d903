"""Writes: store (replay, versions, supersession), forget and purge, each inside one write transaction.

The port of the SQLite engine's store.py, rule for rule (the version rules themselves are imported
from it, so both engines decide replays and corrections alike). The caller holds the tenants' write
locks (db.Database.write), so the reads below see every earlier write to the same tenant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from tinymemory.api.filters import MetaFilter
from tinymemory.api.items import About, NewItem, Relation
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.relations import entity_key
from tinymemory.api.requests import StoreResult
from tinymemory.engines.postgres import lexstats, threads
from tinymemory.engines.postgres.batch import Batch, Row
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.tenancy import tenant_of
from tinymemory.engines.postgres.where import ACTIVE, WHERE
from tinymemory.engines.rows import PURGED_TABLES, to_us
from tinymemory.engines.versions import (
    CORRECTABLE,
    Pending,
    VectorSpace,
    embed_text,
)
from tinymemory.engines.writes import Cascade, Prior, decide
from tinymemory.retrieval.text import Analyzer

__all__ = ["Pending", "VectorSpace", "active_keys", "embed_text", "forget_filter", "forget_ids", "purge"]


async def active_keys(conn: Conn, keys: Sequence[str]) -> set[str]:
    """Content keys that already have an active item (those stores will be replays: no embedding)."""
    cur = await conn.execute(
        f"SELECT ckey FROM items WHERE ckey = ANY(%s::text[]) AND {ACTIVE}", (list(dict.fromkeys(keys)),)
    )
    return {str(r[0]) for r in await cur.fetchall()}


async def write_items(
    conn: Conn,
    pending: Sequence[Pending],
    analyzer: Analyzer,
    space: VectorSpace | None,
    now: datetime,
    context: bool = False,
) -> list[StoreResult]:
    """Store each item in order (a later duplicate in the same batch replays the earlier one); an item
    without `observed_at` is observed at `now`.

    With `context`, a turn of a thread indexes its neighbours' words in its context field. The rows the
    items depend on are read up front for the whole batch (batch.py), every item is decided in order
    against that view, and the writes go out together, pipelined, at the end.
    """
    deltas = lexstats.Deltas()
    view = await Batch.load(conn, [(p.item, p.ckey) for p in pending], context)
    results = [await _decide(conn, view, p, analyzer, space, now, context, deltas) for p in pending]
    async with conn.pipeline():
        await view.flush(conn, space.name if space is not None else None, space.dim if space else 0)
        await deltas.flush(conn)
    return results


async def _neighbour_context(
    conn: Conn, view: Batch, item: NewItem, analyzer: Analyzer, deltas: lexstats.Deltas
) -> str:
    """Link a turn about to be written with the previous active turn of its thread: each indexes the
    other's words."""
    meta = item.meta
    if meta.thread_id is None:
        return ""
    prev = await view.latest_turn(conn, meta.thread_id, str(meta.namespace))
    if prev is None:
        return ""
    mine = analyzer.index_text(item.text)
    if mine:
        view.set_context(deltas, prev, lambda words: f"{words} {mine}".strip())
    return analyzer.index_text(prev.text or "")


async def _decide(
    conn: Conn,
    view: Batch,
    p: Pending,
    analyzer: Analyzer,
    space: VectorSpace | None,
    now: datetime,
    context: bool,
    deltas: lexstats.Deltas,
) -> StoreResult:
    """One item against the batch's view, by the version rules every engine shares (engines/writes.py)."""
    found = view.active(p.ckey)
    active = None if found is None else (_prior(found), cast(Mapping[str, Any], found.fields))

    def same_about(about: About, ns: str) -> list[Prior[Row]]:
        return [_prior(r) for r in view.about(about.kind, about.key, ns)]

    decided = decide(p, now, active, lambda: view.next_generation(p.ckey), same_about)
    if isinstance(decided, StoreResult):
        return decided
    item, meta, values = decided.item, decided.item.meta, decided.values
    values["tenant"] = tenant_of(meta.namespace)
    values["valid_to"] = None
    values["superseded_by"] = None
    # the analysed fields (and the link with the thread's previous turn) before the row is written, so
    # that its indexed length goes in with it
    body = item.text if not meta.summary else f"{item.text}\n{meta.summary}"
    ctx = await _neighbour_context(conn, view, item, analyzer, deltas) if context else ""
    indexed = lexstats.index_values(analyzer.index_text(meta.title or ""), analyzer.index_text(body), ctx)
    values.update(indexed)
    ns = str(meta.namespace)
    lexstats.count_new(deltas, ns, indexed)
    for old in decided.closing:
        view.close(old.handle, decided.ends(old), decided.id)
    vector = None
    if space is not None:
        vector = p.vector if p.vector is not None else space.embed([embed_text(item)])[0]
    row = Row(
        order=0,
        id=decided.id,
        ckey=p.ckey,
        valid_from=int(values["valid_from"]),
        fields={c: values[c] for c in ("extra", *CORRECTABLE)},
        text=item.text,
        lex=(ns, indexed["lex_title"], indexed["lex_body"], indexed["lex_context"]),
        values=values,
        tags=meta.tags,
        evidence=meta.evidence,
        relations=meta.relations,
        vector=vector,
    )
    view.add(item, row)
    return decided.result


def _prior(row: Row) -> Prior[Row]:
    return Prior(row, row.id, row.valid_from)


async def _write_relations(conn: Conn, tenant: str, rowid: int, relations: Sequence[Relation]) -> None:
    """One row per edge, with the matching keys of both ends, in the order the memory lists them."""
    if not relations:
        return
    async with conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO relations (tenant, item_rowid, subject, subject_key, type, object, object_key)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [
                (tenant, rowid, r.subject, entity_key(r.subject), r.type, r.object, entity_key(r.object))
                for r in relations
            ],
        )


async def forget_ids(
    conn: Conn, ids: Sequence[str], reach: Reach | None, now: datetime
) -> tuple[list[str], list[str]]:
    """Soft-delete the ids found (not yet forgotten) under `reach`, and what cites them; return
    (forgotten, skipped): the asked ids first, then those forgotten with them."""
    cur = await conn.execute(
        "SELECT rowid, id, ns FROM items WHERE id = ANY(%s::text[]) AND forgotten_at IS NULL", (list(ids),)
    )
    # ids are unique per tenant (schema.py): a reach over several tenants may find one id in each
    found: dict[str, list[int]] = {}
    for rowid, item, ns in await cur.fetchall():
        if reach is None or reach.contains(Namespace.parse(str(ns))):
            found.setdefault(str(item), []).append(int(rowid))
    asked = [i for i in ids if i in found]
    chosen = [(r, i) for i in dict.fromkeys(asked) for r in sorted(found[i])]
    derived = await _forget_rows(conn, chosen, reach, now)
    return asked + derived, [i for i in ids if i not in found]


async def forget_filter(conn: Conn, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
    """Soft-delete what the filter reads (active, or as of `as_of`), confined to `reach` as well, and
    what cites it."""
    cur = await conn.execute(*WHERE.forgettable(flt, reach))
    chosen = [(int(r[0]), str(r[1])) for r in await cur.fetchall()]
    return [i for _, i in chosen] + await _forget_rows(conn, chosen, reach, now)


async def _citing(conn: Conn, ids: list[str], reach: Reach | None) -> list[tuple[int, str]]:
    """Active-or-superseded items under `reach` that cite any of `ids` as evidence."""
    cur = await conn.execute(
        "SELECT DISTINCT i.rowid, i.id, i.ns FROM item_evidence e CROSS JOIN LATERAL"
        " (SELECT x.rowid, x.id, x.ns, x.forgotten_at FROM items x WHERE x.rowid = e.item_rowid LIMIT 1) i"
        " WHERE e.cites = ANY(%s::text[]) AND i.forgotten_at IS NULL ORDER BY i.rowid",
        (ids,),
    )
    return [
        (int(r[0]), str(r[1]))
        for r in await cur.fetchall()
        if reach is None or reach.contains(Namespace.parse(str(r[2])))
    ]


async def _forget_rows(
    conn: Conn, rows: list[tuple[int, str]], reach: Reach | None, now: datetime
) -> list[str]:
    """Forget `rows` and, transitively, what cites them (a learning or a summary derived from a turn);
    take each out of the lexical index and relink the turns beside it. Returns the derived ids."""
    cascade = Cascade(rows)
    while cascade.frontier:
        cascade.add(await _citing(conn, cascade.frontier, reach))
    chosen, derived = cascade.chosen, cascade.derived
    if not chosen:
        return derived
    await conn.execute(
        "UPDATE items SET forgotten_at = %s WHERE rowid = ANY(%s::bigint[])", (to_us(now), list(chosen))
    )
    beside = await threads.neighbours_of(conn, chosen)
    deltas = lexstats.Deltas()
    for r in sorted(chosen):
        await lexstats.unindex(conn, deltas, r)
    await threads.relink(conn, deltas, beside)
    await deltas.flush(conn)
    return derived


async def purge(conn: Conn, reach: Reach | None, forgotten_before: int | None) -> int:
    """Hard-delete forgotten rows with their tags, evidence links, relations and vectors (their index
    columns and statistics already left at forget)."""
    cur = await conn.execute(*WHERE.purgeable(reach, forgotten_before))
    rowids = [int(r[0]) for r in await cur.fetchall()]
    if not rowids:
        return 0
    deltas = lexstats.Deltas()
    for r in rowids:
        await lexstats.unindex(conn, deltas, r)  # a no-op unless a row was forgotten without it
    await deltas.flush(conn)
    for table, col in PURGED_TABLES:
        await conn.execute(f"DELETE FROM {table} WHERE {col} = ANY(%s::bigint[])", (rowids,))
    return len(rowids)
