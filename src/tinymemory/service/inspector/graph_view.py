"""A memory's neighbourhood in the recall graph, and its picture.

The entities a memory's relations name are the seeds; the engine's graph expansion (the walk
memory__recall's `seed_name` takes) runs from each, one or two hops, under the caller's read reach, so
every node is a memory the caller could recall and every edge one such a memory asserts. A node hangs
off the memory that led to it: the shown memory for hop 1, the hop-1 memory sharing an entity with
it for hop 2. The layout is two rings around the shown memory, in the order the engine ranked them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tinymemory.api import MemoryEngine, MemoryItem, MetaFilter
from tinymemory.api.relations import ExpandRequest, GraphHit, Relation, entity_key
from tinymemory.policy import Tiers
from tinymemory.service.inspector.markup import EMPTY, Html, fill, item_url, join

MAX_SEEDS = 8  # entities of the shown memory walked from (a memory may name up to 256)
MAX_NODES = 24  # memories drawn besides the shown one
LABEL_CHARS = 26
WIDTH, HEIGHT = 800, 640  # wider than high: labels run sideways
RINGS = (0, 140, 260)  # radius of the shown memory, hop 1, hop 2


@dataclass(frozen=True, slots=True)
class Node:
    """A reached memory, the edge it was reached by, and the node it hangs off."""

    item: MemoryItem
    hop: int
    via: str
    relation: Relation
    parent: str


@dataclass(frozen=True, slots=True)
class Graph:
    center: MemoryItem
    hops: int
    nodes: tuple[Node, ...]
    truncated: bool  # more memories were reached than are drawn


def _keys(relation: Relation) -> set[str]:
    return {entity_key(relation.subject), entity_key(relation.object)}


def seeds(item: MemoryItem) -> tuple[str, ...]:
    """The entities the memory's relations name, once each, in the order written, at most MAX_SEEDS."""
    named: dict[str, str] = {}
    for r in item.meta.relations:
        for name in (r.subject, r.object):
            named.setdefault(entity_key(name), name)
    return tuple(named.values())[:MAX_SEEDS]


async def neighbourhood(engine: MemoryEngine, tiers: Tiers, item: MemoryItem, hops: int) -> Graph:
    flt = MetaFilter(reach=tiers.read_reach)
    hits: list[GraphHit] = []
    truncated = len(seeds(item)) < len({k for r in item.meta.relations for k in _keys(r)})
    for seed in seeds(item):
        found = await engine.expand(
            ExpandRequest(seed_name=seed, max_hops=hops, filter=flt, limit=MAX_NODES + 1)
        )
        truncated = truncated or len(found.hits) > MAX_NODES
        hits.extend(found.hits)
    hits.sort(key=lambda h: h.hop)  # stable: each seed's ranking kept, hop 1 of every seed first
    nodes: dict[str, Node] = {}
    for hit in hits:
        if hit.item.id == item.id or hit.item.id in nodes:
            continue
        parent = item.id
        if hit.hop == 2:
            touched = _keys(hit.relation)
            near = [n for n in nodes.values() if n.hop == 1 and _keys(n.relation) & touched]
            if not near:
                continue  # its hop-1 memory is not drawn, so neither is it
            parent = near[0].item.id
        if len(nodes) == MAX_NODES:
            truncated = True
            break
        nodes[hit.item.id] = Node(hit.item, hit.hop, hit.via, hit.relation, parent)
    return Graph(item, hops, tuple(nodes.values()), truncated)


def label_of(item: MemoryItem, chars: int = LABEL_CHARS) -> str:
    text = item.meta.title or " ".join(item.text.split()) or item.id
    return text if len(text) <= chars else text[: chars - 1] + "…"


def positions(graph: Graph) -> dict[str, tuple[float, float]]:
    """Where each node stands: the shown memory in the middle, hop 1 evenly round its ring from the top
    clockwise, and each hop-2 node on the outer ring inside the slice of the hop-1 node it hangs off,
    so no edge crosses the middle."""
    mx, my = WIDTH / 2, HEIGHT / 2
    out = {graph.center.id: (mx, my)}

    def place(memory_id: str, hop: int, angle: float) -> None:
        out[memory_id] = (
            round(mx + RINGS[hop] * math.cos(angle), 1),
            round(my + RINGS[hop] * math.sin(angle), 1),
        )

    first = [n for n in graph.nodes if n.hop == 1]
    slice_ = 2 * math.pi / max(1, len(first))
    for i, parent in enumerate(first):
        angle = -math.pi / 2 + slice_ * i
        place(parent.item.id, 1, angle)
        children = [n for n in graph.nodes if n.hop == 2 and n.parent == parent.item.id]
        for k, child in enumerate(children):
            place(child.item.id, 2, angle + slice_ * ((k + 0.5) / len(children) - 0.5))
    return out


def svg(graph: Graph, title: str) -> Html:
    at = positions(graph)
    edges = join(
        fill(
            '<g class="edge"><line x1="$x1" y1="$y1" x2="$x2" y2="$y2"/>'
            '<text class="edge-label" x="$mx" y="$my">$type</text></g>',
            x1=at[n.parent][0],
            y1=at[n.parent][1],
            x2=at[n.item.id][0],
            y2=at[n.item.id][1],
            mx=round(0.45 * at[n.parent][0] + 0.55 * at[n.item.id][0], 1),
            my=round(0.45 * at[n.parent][1] + 0.55 * at[n.item.id][1], 1),
            type=n.relation.type,
        )
        for n in graph.nodes
    )
    drawn = [(graph.center, 0), *((n.item, n.hop) for n in graph.nodes)]
    nodes = join(
        fill(
            '<a class="node hop$hop" href="$href"><title>$full</title>'
            '<circle cx="$x" cy="$y" r="$r"/><text x="$x" y="$ty">$label</text></a>',
            hop=hop,
            href=item_url(it.id),
            full=label_of(it, 200),
            x=at[it.id][0],
            y=at[it.id][1],
            r=14 if hop == 0 else 9,
            ty=round(at[it.id][1] + (30 if hop == 0 else 24), 1),
            label=label_of(it),
        )
        for it, hop in drawn
    )
    return fill(
        """<figure class="graph">
<svg class="graph-svg" viewBox="0 0 $w $h" role="img" aria-labelledby="graph-title">
<title id="graph-title">$title</title>
$edges
$nodes
</svg>
</figure>""",
        w=WIDTH,
        h=HEIGHT,
        title=title,
        edges=edges,
        nodes=nodes,
    )


def listing(graph: Graph) -> Html:
    """The same graph as a list: each reached memory, its hop and the path that reached it."""
    if not graph.center.meta.relations:
        return Html('<p class="empty">This memory names no relations.</p>')
    if not graph.nodes:
        return Html('<p class="empty">No other memory you can see relates to these entities.</p>')
    rows = join(
        fill(
            '<li><a href="$href">$label</a> <span class="meta">hop $hop · $via</span></li>',
            href=item_url(n.item.id),
            label=label_of(n.item, 120),
            hop=n.hop,
            via=n.via,
        )
        for n in graph.nodes
    )
    more = (
        fill(
            '<p class="meta">More memories were reached: at most $n are shown, walked from the first $s'
            " entities.</p>",
            n=MAX_NODES,
            s=MAX_SEEDS,
        )
        if graph.truncated
        else EMPTY
    )
    return fill('<ol class="graph-list">$rows</ol>$more', rows=rows, more=more)
