"""Requests and results of every engine operation."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tinymemory.api.filters import Facet, FetchMode, MetaFilter, TimeHint
from tinymemory.api.items import MemoryItem
from tinymemory.api.namespace import Reach

DEFAULT_LIMIT = 10
MAX_LIMIT = 1000  # engine bound; the tools narrow this to 1..=50
MAX_IDS = 1000  # engine bound; the tools narrow this to 1..=200


@dataclass(frozen=True, slots=True)
class StoreResult:
    id: str
    replayed: bool
    superseded: tuple[str, ...] = ()  # ids whose valid_to this store closed


@dataclass(frozen=True, slots=True)
class FetchRequest:
    query: str
    mode: FetchMode | None = None  # None: hybrid when served, else the engine's first mode
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    time_hint: TimeHint | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    item: MemoryItem
    score: float


@dataclass(frozen=True, slots=True)
class FetchResult:
    hits: tuple[Hit, ...]
    mode: FetchMode
    next_cursor: str | None = None


@dataclass(frozen=True, slots=True)
class ListRequest:
    """Newest first (observed_at, then id)."""

    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


@dataclass(frozen=True, slots=True)
class ListResult:
    items: tuple[MemoryItem, ...]
    next_cursor: str | None = None


@dataclass(frozen=True, slots=True)
class GetRequest:
    """Read by id. Ids outside `reach`, unknown or forgotten come back in `missing`.

    Superseded versions are returned (they are history a citation may point at).
    """

    ids: tuple[str, ...]
    reach: Reach | None = None


@dataclass(frozen=True, slots=True)
class Tombstone:
    """What a read may learn of a forgotten item: its id and when it was forgotten, nothing of its content.

    The lifecycle needs it so that a learning the user forgot is not derived again from what was said
    before the forget. Purged items leave no tombstone.
    """

    id: str
    forgotten_at: datetime


@dataclass(frozen=True, slots=True)
class GetResult:
    """`missing`: every asked id not returned (unknown, outside the reach, forgotten or purged).

    `forgotten`: the asked ids, within the reach, that are forgotten but not yet purged, in the order
    asked. They are in `missing` too, so a caller that only knows `missing` reads them as gone. Outside
    the reach a forgotten id is only `missing`, exactly like an unknown one.
    """

    items: tuple[MemoryItem, ...]
    missing: tuple[str, ...]
    forgotten: tuple[Tombstone, ...] = ()


@dataclass(frozen=True, slots=True)
class ExploreRequest:
    facet: Facet
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT


@dataclass(frozen=True, slots=True)
class Bucket:
    value: str
    count: int


@dataclass(frozen=True, slots=True)
class ExploreResult:
    """`total` items matched; `missing` of them have no value for the facet; `more_buckets` says the
    limit cut the bucket list; `truncated` says counts cover only the first `EXPLORE_SCAN_CAP` items."""

    facet: Facet
    buckets: tuple[Bucket, ...]
    total: int
    missing: int
    more_buckets: bool
    truncated: bool


EXPLORE_SCAN_CAP = 1_000_000


@dataclass(frozen=True, slots=True)
class ForgetRequest:
    """Soft delete by ids (confined to `reach`; the rest are skipped) or by a non-empty filter."""

    ids: tuple[str, ...] | None = None
    filter: MetaFilter | None = None
    reach: Reach | None = None


@dataclass(frozen=True, slots=True)
class ForgetResult:
    forgotten: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PurgeRequest:
    """Hard-delete forgotten memory (all of it in `reach`, or only what was forgotten before `before`)."""

    reach: Reach | None = None
    forgotten_before: datetime | None = None


@dataclass(frozen=True, slots=True)
class PurgeResult:
    purged: int


@dataclass(frozen=True, slots=True)
class RecallRequest:
    question: str
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT
    instructions: str | None = None
    time_hint: TimeHint | None = None
    mode: FetchMode | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    id: str
    score: float
    item: MemoryItem


@dataclass(frozen=True, slots=True)
class RecallResult:
    answer: str
    citations: tuple[Citation, ...]
