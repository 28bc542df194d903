"""What a facade reads by default: its node, the node's ancestors, and the documents ingested at any of
them; and the same split into weighted scopes for holistic recall.

The brain keeps a node's documents under `<node>/memory:brain/source:<name>` (MemoryLayout); a facade
adds only that branch of each node in its lineage to `Reach.of(node)`, so a sibling's or a child's own
memory stays out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tinymemory.api import Namespace, Reach
from tinymemory.api.errors import InvalidRequest

if TYPE_CHECKING:
    from tinymemory.context import Scope

# `MemoryLayout(node).brain_root` (lifecycle/layout.py), spelt out here so opening a facade does not
# import the lifecycle layer; a test keeps the two the same.
BRAIN_SEGMENT = ("memory", "brain")
# Holistic recall weighs each step up the namespace tree by this much less than the one below it.
LINEAGE_DECAY = 0.7


def brain_root(node: Namespace) -> Namespace | None:
    """Where the brain keeps the documents ingested at `node` (None when the tree is too deep there)."""
    try:
        return node.child(*BRAIN_SEGMENT)
    except InvalidRequest:
        return None


def default_reach(namespace: Namespace) -> Reach:
    """The node, its ancestors, and the documents ingested at any of them (their brain subtrees)."""
    brains = [Reach.subtree(b) for node in namespace.lineage() if (b := brain_root(node)) is not None]
    return Reach.union(Reach.of(namespace), *brains)


def lineage_scopes(namespace: Namespace, decay: float = LINEAGE_DECAY) -> tuple[Scope, ...]:
    """`context.lineage_scopes` (one scope per node of the lineage, nearest first, every step up
    weighing `decay` times the one below), each node's scope widened by its brain. Their union is
    exactly `default_reach(namespace)`."""
    from tinymemory.context import lineage_scopes as node_scopes

    scopes: list[Scope] = []
    for node, scope in zip(namespace.lineage(), node_scopes(namespace, decay=decay), strict=True):
        brain = brain_root(node)
        if brain is not None:
            scope = replace(scope, reach=Reach.union(Reach.exact(node), Reach.subtree(brain)))
        scopes.append(scope)
    return tuple(scopes)
