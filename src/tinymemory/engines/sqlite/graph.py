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
from dataclasses import dataclass

from tinymemory.api.items import Relation
from tinymemory.api.relations import ExpandRequest, ExpandResult, GraphHit, entity_key
from tinymemory.engines.sqlite.reads import items_by_rowid
from tinymemory.engines.sqlite.where import Params, filter_sql


@dataclass(frozen=True, slots=True)
class Edge:
    """A visible edge with the item asserting it, in the order hits are ranked."""

    edge: int
    item: int
    relation: Relation
    subject_key: str
    object_key: str


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


def _step(edge: Edge, start_key: str) -> tuple[str, str, str]:
    """Walk `edge` from the end keyed `start_key`: (name written at the start, the arrow and the far
    name, the far end's key). The arrow keeps the stored direction."""
    rel = edge.relation
    if edge.subject_key == start_key:
        return rel.subject, f"-{rel.type}-> {rel.object}", edge.object_key
    return rel.object, f"<-{rel.type}- {rel.subject}", edge.subject_key


Ranked = list[tuple[int, int, str, Relation]]  # (hop, item rowid, via, relation), best first


def first_hop(first: list[Edge], seed: str) -> tuple[Ranked, dict[str, str]]:
    """Hop 1 from the seed: its hits, and the path to each entity reached (the best edge reaching an
    entity wins, as edges come best first). Pure, so every engine walks alike around its own queries."""
    reached: dict[str, str] = {}
    ranked: Ranked = []
    for e in first:
        start, rest, far = _step(e, seed)
        via = f"{start} {rest}"
        ranked.append((1, e.item, via, e.relation))
        if far != seed:
            reached.setdefault(far, via)
    return ranked, reached


def second_hop(edges: list[Edge], reached: dict[str, str], seed: str) -> Ranked:
    """Hop 2: each edge walked from the end hop 1 reached first (an edge between two reached entities
    walks from the better-ranked one); edges back to the seed were hop 1's to report."""
    rank = {key: n for n, key in enumerate(reached)}
    out: Ranked = []
    for e in edges:
        start_key = min((k for k in (e.subject_key, e.object_key) if k in rank), key=rank.__getitem__)
        _, rest, far = _step(e, start_key)
        if far != seed:
            out.append((2, e.item, f"{reached[start_key]} {rest}", e.relation))
    return out


def choose(ranked: Ranked, limit: int) -> Ranked:
    """The first hit of each item, up to `limit`."""
    seen: set[int] = set()
    chosen: Ranked = []
    for hit in ranked:
        if hit[1] in seen:
            continue
        seen.add(hit[1])
        chosen.append(hit)
        if len(chosen) == limit:
            break
    return chosen


def expand(conn: sqlite3.Connection, req: ExpandRequest) -> ExpandResult:
    seed = entity_key(req.seed_name)
    first = _edges(conn, [seed], req)
    ranked, reached = first_hop(first, seed)
    if req.max_hops >= 2 and reached:
        ranked += second_hop(_edges(conn, reached, req, used=(f.edge for f in first)), reached, seed)
    chosen = choose(ranked, req.limit)
    items = items_by_rowid(conn, [c[1] for c in chosen])
    return ExpandResult(tuple(GraphHit(items[r], hop, via, rel) for hop, r, via, rel in chosen))
