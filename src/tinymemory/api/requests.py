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
    """What a store did: the memory's id, whether it was a replay of content already stored (nothing written),
    and the ids of earlier versions this store superseded."""

    id: str
    replayed: bool
    superseded: tuple[str, ...] = ()  # ids whose valid_to this store closed


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """A search: the query, its mode (None: hybrid when served), the filter that bounds it (the reach among
    it), how many hits, a cursor for the next page, and an optional time hint that ranks memories about those
    days first."""

    query: str
    mode: FetchMode | None = None  # None: hybrid when served, else the engine's first mode
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    time_hint: TimeHint | None = None
    explain: bool = False  # True: each hit carries `why`, the signals behind its score


@dataclass(frozen=True, slots=True)
class Why:
    """The signals behind one hit's score, all read from the fetch's own reach and candidates: where the
    lexical (bm25, mapped into [0, 1)) and semantic (cosine) rankers placed it (ranks from 1; None when
    that ranker did not find it), the hybrid fusion's score, the feature reranker's inputs and output,
    the confidence prior, the coverage reranker's score, whether a time hint matched it and how
    (`time`: "boosted" for a hint read from the query, "first" for an explicit one or for memory dated
    by its own words to the one day the query names), the name (an analysed term) it shares with one
    of the best memories when the links stage gave its score (`linked`), and its final score and rank.
    A stage that did not run leaves its fields None."""

    score: float
    rank: int
    lexical: float | None = None
    lexical_rank: int | None = None
    semantic: float | None = None
    semantic_rank: int | None = None
    fused: float | None = None
    features: tuple[tuple[str, float], ...] | None = None
    reranker: float | None = None
    prior: float | None = None
    coverage: float | None = None
    time: str | None = None
    time_boost: float | None = None
    linked: str | None = None

    def as_json(self) -> dict[str, object]:
        """Plain JSON, the fields that are set, numbers to six places."""
        out: dict[str, object] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if value is None:
                continue
            if name == "features":
                out[name] = {k: round(v, 6) for k, v in value}
            else:
                out[name] = round(value, 6) if isinstance(value, float) else value
        return out


@dataclass(frozen=True, slots=True)
class Hit:
    """One fetched memory and its score in the fetch's mode (higher is better; comparable only within one
    result); `why` only when the fetch asked (FetchRequest.explain)."""

    item: MemoryItem
    score: float
    why: Why | None = None


@dataclass(frozen=True, slots=True)
class FetchResult:
    """The hits of a fetch, best first, the mode that ranked them, and a cursor for the next page when there
    is one."""

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
    """One page of listed memories, newest first, and a cursor for the next page when there is one."""

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
    """Count the memories a filter matches by one facet, returning at most `limit` buckets."""

    facet: Facet
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT


@dataclass(frozen=True, slots=True)
class Bucket:
    """One value of an explored facet and how many matched memories carry it."""

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
    """The ids forgotten (those asked for first, then the memories that cited them) and the asked ids that
    were skipped (outside the reach, unknown or already forgotten)."""

    forgotten: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PurgeRequest:
    """Hard-delete forgotten memory (all of it in `reach`, or only what was forgotten before `before`)."""

    reach: Reach | None = None
    forgotten_before: datetime | None = None


@dataclass(frozen=True, slots=True)
class PurgeResult:
    """How many forgotten versions a purge deleted for good."""

    purged: int


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """A question to answer from memory: the filter bounds what may be cited, `limit` how many memories are
    read, and optional instructions, time hint and fetch mode shape the answer."""

    question: str
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = DEFAULT_LIMIT
    instructions: str | None = None
    time_hint: TimeHint | None = None
    mode: FetchMode | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    """A memory a recall's answer used, with its retrieval score."""

    id: str
    score: float
    item: MemoryItem


@dataclass(frozen=True, slots=True)
class RecallResult:
    """The answer to a recall and the citations it rests on, so every claim can be traced to a stored
    memory."""

    answer: str
    citations: tuple[Citation, ...]
