"""Walking relation edges from a named entity, the same for every engine around its own edge queries.

An engine reads the visible edges touching a set of entity keys, best memory first; these pure steps
turn hop 1 and hop 2 into ranked hits, each memory reported once at its first hop.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinymemory.api.items import Relation


@dataclass(frozen=True, slots=True)
class Edge:
    """A visible edge with the item asserting it, in the order hits are ranked."""

    edge: int
    item: int
    relation: Relation
    subject_key: str
    object_key: str


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
