"""Graph expansion over the `relations` table: one or two hops from a named entity (the SQLite port).

Every edge read joins its item and applies the read's whole filter, so an edge is followed exactly when
the memory asserting it is visible to the read. The item is looked up by key in a LATERAL subquery, so
the plan never hangs on row estimates (a fresh table has none; a wrong join order costs seconds).
"""

from __future__ import annotations

from collections.abc import Iterable

from tinymemory.api.items import Relation
from tinymemory.api.relations import ExpandRequest, ExpandResult, GraphHit, entity_key
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.reads import items_by_rowid
from tinymemory.engines.postgres.where import Params, filter_sql
from tinymemory.engines.walk import Edge, choose, first_hop, second_hop


async def _edges(conn: Conn, keys: Iterable[str], req: ExpandRequest, used: Iterable[int] = ()) -> list[Edge]:
    """Visible edges with an end in `keys` (optionally of the request's types), best memory first."""
    keyset = sorted(set(keys))
    params: Params = [keyset, keyset]
    conds = ["(r.subject_key = ANY(%s::text[]) OR r.object_key = ANY(%s::text[]))"]
    used_ids = sorted(set(used))
    if used_ids:
        conds.append("r.rowid <> ALL(%s::bigint[])")
        params.append(used_ids)
    if req.relation_types:
        conds.append("r.type = ANY(%s::text[])")
        params.append(list(req.relation_types))
    conds.append(filter_sql(req.filter, params))
    cur = await conn.execute(
        "SELECT r.rowid, r.item_rowid, r.subject, r.type, r.object, r.subject_key, r.object_key"
        " FROM relations r CROSS JOIN LATERAL (SELECT * FROM items x WHERE x.rowid = r.item_rowid LIMIT 1) i"
        f" WHERE {' AND '.join(conds)}"
        " ORDER BY i.confidence IS NULL, i.confidence DESC, i.observed_at DESC, i.id ASC, r.rowid ASC",
        params,
    )
    return [
        Edge(int(r[0]), int(r[1]), Relation(str(r[2]), str(r[3]), str(r[4])), str(r[5]), str(r[6]))
        for r in await cur.fetchall()
    ]


async def expand(conn: Conn, req: ExpandRequest) -> ExpandResult:
    seed = entity_key(req.seed_name)
    first = await _edges(conn, [seed], req)
    ranked, reached = first_hop(first, seed)
    if req.max_hops >= 2 and reached:
        ranked += second_hop(await _edges(conn, reached, req, used=(f.edge for f in first)), reached, seed)
    chosen = choose(ranked, req.limit)
    items = await items_by_rowid(conn, [c[1] for c in chosen])
    return ExpandResult(tuple(GraphHit(items[r], hop, via, rel) for hop, r, via, rel in chosen))
