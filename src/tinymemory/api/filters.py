"""Filters, time hints, facets and fetch modes: the shared vocabulary of every read."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum

from tinymemory.api.items import About, ItemKind
from tinymemory.api.namespace import Namespace, Reach


class FetchMode(StrEnum):
    """How a fetch ranks: by words (BM25), by meaning (embedding cosine), or both fused. An engine lists the
    modes it serves in its descriptor, and the tools offer only those."""

    LEXICAL = "lexical"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


class Facet(StrEnum):
    """memory_explore's facets. There is deliberately no namespace facet: it would leak the tree."""

    KIND = "kind"
    SOURCE = "source"
    SOURCE_ID = "source_id"
    WORKSPACE = "workspace"
    FOLDER = "folder"
    FILE_PATH = "file_path"
    LANGUAGE = "language"
    REPO = "repo"
    URL = "url"
    THREAD = "thread"
    AGENT = "agent"
    TOOL_CALL = "tool_call"
    TAG = "tag"


# The facets that count one ItemMeta string field, and the field each counts.
FACET_META_FIELDS: dict[Facet, str] = {
    Facet.WORKSPACE: "workspace",
    Facet.FOLDER: "folder",
    Facet.FILE_PATH: "file_path",
    Facet.LANGUAGE: "language",
    Facet.REPO: "repo",
    Facet.URL: "url",
    Facet.THREAD: "thread_id",
    Facet.AGENT: "agent_id",
    Facet.TOOL_CALL: "tool_call",
}

# MetaFilter fields that match one same-named meta field exactly.
EQUALITY_FIELDS: tuple[str, ...] = (*FACET_META_FIELDS.values(), "parent")

# Fields only the host may set; the model-facing filter never carries them.
HOST_FIXED_FIELDS = frozenset({"namespace", "reach"})


@dataclass(frozen=True, slots=True)
class MetaFilter:
    """Conjunction of the set fields; tuple fields match any of their values.

    By default reads see only active memory (not superseded, not forgotten). `as_of` instead reads the
    versions that were active at that instant. Forgotten memory is never read.
    """

    namespace: Namespace | None = None  # exactly this node (host only)
    reach: Reach | None = None  # confine to these nodes (host only); None = every node
    kinds: tuple[ItemKind, ...] = ()
    sources: tuple[str, ...] = ()  # source kinds
    source_ids: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    workspace: str | None = None
    folder: str | None = None
    file_path: str | None = None
    language: str | None = None
    repo: str | None = None
    url: str | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    tool_call: str | None = None
    observed_after: datetime | None = None  # inclusive
    observed_before: datetime | None = None  # exclusive
    learning_kinds: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    min_confidence: float | None = None
    about: About | None = None
    parent: str | None = None
    as_of: datetime | None = None

    def set_fields(self) -> tuple[str, ...]:
        """Names of the fields that constrain anything."""
        out = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == ():
                continue
            out.append(f.name)
        return tuple(out)

    def is_empty(self) -> bool:
        """True when no field is set, so a caller can refuse a forget by filter that would match
        everything."""
        return not self.set_fields()

    def constrains_beyond_scope(self) -> bool:
        """True when something other than namespace/reach/as_of narrows the filter."""
        return any(name not in HOST_FIXED_FIELDS | {"as_of"} for name in self.set_fields())


@dataclass(frozen=True, slots=True)
class TimeHint:
    """The instants a question is about, half-open [start, end). It boosts matching memory, never drops."""

    start: datetime
    end: datetime
