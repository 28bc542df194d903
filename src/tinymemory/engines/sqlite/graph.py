"""Graph expansion over the `relations` table: one or two hops from a named entity.

Every edge read joins its item and applies the read's whole filter (`where.filter_sql`: reach, state,
as_of and the rest), so an edge is followed exactly when the memory asserting it is visible to the
read. Hop 1 takes the edges touching the seed, in either direction; hop 2 the edges touching the
entities hop 1 reached, never an edge already used. Each memory is reported once, at its first hop.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from tinymemory.api.items import Relation
from tinymemory.api.relations import ExpandRequest, ExpandResult, GraphHit, entity_key
from tinymemory.engines.sqlite.reads import items_by_rowid
from tinymemory.engines.sqlite.where import Params, filter_sql
from tinymemory.engines.walk import Edge, choose, first_hop, second_hop


def _edges(
    conn: sqlite3.Connection, keys: Iterable[str], req: ExpandRequest, used: Iterable[int] = ()
) -> list[Edge]:
    """Visible edges with an end in `keys` (optionally of the request's types), best memory first."""
    params: Params = []
    keyset = json.dumps(sorted(set(keys)))
    conds = [
        "(r.subject_key IN (SELECT value FROM json_each(?))"
        " OR r.object_key IN (SELECT value FROM json_each(?)))"
    ]
    params.extend((keyset, keyset))
    used_ids = sorted(set(used))
    if used_ids:
        conds.append("r.rowid NOT IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(used_ids))
    if req.relation_types:
        conds.append(f"r.type IN ({','.join('?' * len(req.relation_types))})")
        params.extend(req.relation_types)
    conds.append(filter_sql(req.filter, params))
    rows = conn.execute(
        "SELECT r.rowid, r.item_rowid, r.subject, r.type, r.object, r.subject_key, r.object_key"
        " FROM relations r JOIN items i ON i.rowid = r.item_rowid"
        f" WHERE {' AND '.join(conds)}"
        " ORDER BY i.confidence IS NULL, i.confidence DESC, i.observed_at DESC, i.id ASC, r.rowid ASC",
        params,
    ).fetchall()
    return [
        Edge(int(r[0]), int(r[1]), Relation(str(r[2]), str(r[3]), str(r[4])), str(r[5]), str(r[6]))
        for r in rows
    ]


def expand(conn: sqlite3.Connection, req: ExpandRequest) -> ExpandResult:
    seed = entity_key(req.seed_name)
    first = _edges(conn, [seed], req)
    ranked, reached = first_hop(first, seed)
    if req.max_hops >= 2 and reached:
        ranked += second_hop(_edges(conn, reached, req, used=(f.edge for f in first)), reached, seed)
    chosen = choose(ranked, req.limit)
    items = items_by_rowid(conn, [c[1] for c in chosen])
    return ExpandResult(tuple(GraphHit(items[r], hop, via, rel) for hop, r, via, rel in chosen))
