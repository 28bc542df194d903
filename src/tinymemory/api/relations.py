"""Relations between named entities, and graph expansion over them.

A memory may assert typed edges (`Relation`: "Dana -works_on-> Project Atlas"). The edges are not a
separate store: they live and die with the memory version that asserts them, so every rule a read
follows for memories (reach, forgotten, superseded, as_of) holds for the graph too. `expand` walks
from a named entity over those edges, one or two hops, and returns the memories that assert them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from tinymemory.api.filters import MetaFilter
from tinymemory.api.items import MemoryItem, Relation
from tinymemory.api.requests import DEFAULT_LIMIT

# A relation type is a lowercase identifier, so policies can list them and tools can enumerate them.
RELATION_TYPE = re.compile(r"[a-z][a-z0-9_]{0,63}")
MAX_ENTITY_CHARS = 256  # an entity name (and a seed name) is a name, not a passage
MAX_RELATIONS = 256  # edges one memory may assert
MAX_HOPS = 2


def entity_key(name: str) -> str:
    """How entity names are matched: NFC, case-folded, whitespace collapsed ("project  ATLAS" is
    "Project Atlas")."""
    return " ".join(unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold()).split())


def is_relation_type(value: object) -> bool:
    return isinstance(value, str) and RELATION_TYPE.fullmatch(value) is not None


@dataclass(frozen=True, slots=True)
class ExpandRequest:
    """Walk the graph from `seed_name` over `relation_types` (empty: every type), up to `max_hops`.

    The filter decides which memories (and so which edges) are visible: the host sets its reach, and
    `as_of` walks the graph as it was believed at that instant.
    """

    seed_name: str
    relation_types: tuple[str, ...] = ()
    max_hops: int = 1
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT


@dataclass(frozen=True, slots=True)
class GraphHit:
    """One memory reached by expansion: the edge traversed to reach it, at which hop, and the path.

    `via` is written from the seed; each edge keeps its stored direction: `A -t-> B` when walked from
    subject to object, `A <-t- B` when walked from object to subject (B is then the subject).
    """

    item: MemoryItem
    hop: int
    via: str
    relation: Relation


@dataclass(frozen=True, slots=True)
class ExpandResult:
    """Hop 1 first, then hop 2; within a hop by confidence (highest first, unknown last), then
    observed_at (newest first), then id. Each memory appears once, at the first hop that reaches it."""

    hits: tuple[GraphHit, ...]


__all__ = [
    "MAX_ENTITY_CHARS",
    "MAX_HOPS",
    "MAX_RELATIONS",
    "RELATION_TYPE",
    "ExpandRequest",
    "ExpandResult",
    "GraphHit",
    "Relation",
    "entity_key",
    "is_relation_type",
]
