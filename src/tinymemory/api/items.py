"""Memory items: what is stored, with its metadata and its bitemporal columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from tinymemory.api.namespace import Namespace


class ItemKind(StrEnum):
    """What a memory is. Tools and policies build on these; engines store them as their value."""

    LEARNING = "learning"  # a distilled fact, preference, instruction or event
    DOCUMENT = "document"  # a whole document (its chunks point to it as parent)
    CHUNK = "chunk"  # a slice of a document, the unit of brain retrieval
    CONVERSATION = "conversation"  # a logged exchange or a single turn of one
    SUMMARY = "summary"  # a compaction of older conversation, citing what it folds

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """Every kind's string value, in declaration order, for schemas and error messages that list them."""
        return tuple(k.value for k in cls)


# Seed 000's learning kinds (memory_store's learning_kind enum); policies may declare their own types.
LEARNING_KINDS: tuple[str, ...] = ("fact", "preference", "instruction", "event", "decision", "procedure")
DEFAULT_LEARNING_KIND = "fact"
DEFAULT_CONFIDENCE = 0.8


@dataclass(frozen=True, slots=True)
class Source:
    """Where a memory came from: `agent`, `user`, `brain:<name>`, `import`... plus an optional id."""

    kind: str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class About:
    """A stable subject (kind, key): storing again with the same pair supersedes the active version."""

    kind: str
    key: str


@dataclass(frozen=True, slots=True)
class Ref:
    """A media or artifact reference of a memory (an image a document links, an attachment)."""

    kind: str  # image, attachment, link, artifact
    ref: str  # the path or URL as written in the source
    media_type: str | None = None
    sha256: str | None = None
    status: str = "available"  # available | unavailable
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed edge between two named entities, asserted by the memory that carries it.

    Names are kept as written; engines match them case- and space-insensitively (see
    `api.relations.entity_key`). `type` is a lowercase identifier such as `works_on`.
    """

    subject: str
    type: str
    object: str


# ItemMeta's optional single-string fields: validated alike and stored one column each by engines.
SCALAR_META_FIELDS: tuple[str, ...] = (
    "workspace",
    "folder",
    "file_path",
    "language",
    "repo",
    "url",
    "thread_id",
    "agent_id",
    "tool_call",
    "learning_kind",
    "title",
    "summary",
    "purpose",
    "category",
    "parent",
    "parent_title",
)


@dataclass(frozen=True, slots=True)
class ItemMeta:
    """Descriptive metadata. `namespace` is set by the host; the rest by the writer."""

    namespace: Namespace = field(default_factory=Namespace.root)
    source: Source | None = None
    workspace: str | None = None
    folder: str | None = None
    file_path: str | None = None
    language: str | None = None
    repo: str | None = None
    url: str | None = None
    thread_id: str | None = None
    agent_id: str | None = None
    tool_call: str | None = None
    tags: tuple[str, ...] = ()
    observed_at: datetime | None = None  # when recorded; engines fill "now" when absent
    # learnings (seed 000) and policy memories (seed 003)
    learning_kind: str | None = None
    evidence: tuple[str, ...] = ()  # ids (or short quotes) that support a learning
    title: str | None = None
    summary: str | None = None
    purpose: str | None = None
    category: str | None = None
    about: About | None = None
    parent: str | None = None  # id of the document a chunk belongs to
    parent_title: str | None = None
    refs: tuple[Ref, ...] = ()
    # the days the memory is about (event time), when known; feeds TimeHint boosts
    event_from: datetime | None = None
    event_to: datetime | None = None
    extra: tuple[tuple[str, str], ...] = ()  # small host-defined string pairs
    # edges this version asserts: not identity; visible exactly when the memory is (see api.relations)
    relations: tuple[Relation, ...] = ()


@dataclass(frozen=True, slots=True)
class NewItem:
    """A memory to store. Its id derives from namespace, kind and canonical content (see `ids`)."""

    kind: ItemKind
    text: str
    meta: ItemMeta = field(default_factory=ItemMeta)
    confidence: float | None = None
    identity: str | None = None  # extra identity material, e.g. a turn's position in its thread
    supersede: bool = True  # with meta.about: close the active version with the same (namespace, about)


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """A stored memory with its bitemporal state.

    valid_from/valid_to bound when this version was the active one (supersession closes valid_to);
    forgotten_at marks a soft delete.
    """

    id: str
    kind: ItemKind
    text: str
    meta: ItemMeta
    confidence: float | None
    valid_from: datetime
    valid_to: datetime | None = None
    forgotten_at: datetime | None = None
    superseded_by: str | None = None
    supersedes: str | None = None

    @property
    def namespace(self) -> Namespace:
        """The namespace the memory lives in (a shortcut for `meta.namespace`)."""
        return self.meta.namespace

    @property
    def is_active(self) -> bool:
        """True for the current version of a memory: neither superseded (`valid_to` set) nor forgotten."""
        return self.valid_to is None and self.forgotten_at is None
