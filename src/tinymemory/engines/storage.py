"""The storage interface: what an engine provides below the engine core (engines/core.py).

The core does everything the contract says about requests (validation, telemetry, cursors, the
version rules' inputs, embedding, the fetch plan, ranking, recall, timestamps from its clock); a
`Storage` keeps rows and answers narrow questions about them. Every method is async; a storage runs
blocking work wherever it likes (SQLite on its own threads, Postgres on its pool). `op` names the
public operation for error messages ("fetch: the database is busy").

Two rules hold for every method that reads: it sees only what its `reach` or filter allows (the first
privacy rule: counts, scores and ids of rows outside the reach never show), and it is one snapshot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from tinymemory.api.errors import Unsupported
from tinymemory.api.filters import Facet, FetchMode, MetaFilter
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.namespace import Reach
from tinymemory.api.records import ImportResult, StoredRecord
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import ExploreResult, GetResult, Hit, StoreResult, Why
from tinymemory.engines.cursors import ListCursor
from tinymemory.engines.embedder_choice import resolve_embedder
from tinymemory.engines.versions import Floats, Pending
from tinymemory.retrieval.config import RetrievalConfig
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.pipeline import Light, Ranked, ScopeStats
from tinymemory.retrieval.text import Analyzer, analyzer_for

__all__ = [
    "CandidateQuery",
    "FetchPage",
    "IndexReport",
    "Indexing",
    "Ranking",
    "Storage",
    "candidate_rowids",
    "page_hits",
]


@dataclass(frozen=True, slots=True)
class Indexing:
    """How a storage indexes what it keeps: whose vectors (None: lexical only), which analyzer for
    words, and whether a turn also indexes its neighbours' words (`retrieval.context`)."""

    embedder: Embedder | None
    analyzer: Analyzer
    context: bool

    @classmethod
    def choose(
        cls,
        engine: str,
        embedder: Embedder | str | None,
        analyzer: Analyzer | None,
        retrieval: RetrievalConfig,
    ) -> Indexing:
        """An engine's keywords as one choice: "default" resolves the default embedder (or none, when
        it cannot run here), and the analyzer defaults to the retrieval config's."""
        return cls(
            resolve_embedder(embedder, engine),
            analyzer or analyzer_for(retrieval.analyzer),
            retrieval.context.enabled,
        )


@dataclass(frozen=True, slots=True)
class CandidateQuery:
    """What one fetch asks of storage, planned by the core.

    `snapshot`: a cursor's snapshot rowid (a later page reads the same rows), else None and the storage
    takes its newest rowid. `want`: candidates per ranker. `postings_budget`: how many postings the
    lexical ranker may read (it drops the commonest query terms beyond it). `embed_query` gives the
    query's vector (blocking: run it off the event loop, beside the lexical work if you can); None for a
    lexical fetch.
    """

    mode: FetchMode
    text: str
    filter: MetaFilter
    snapshot: int | None
    want: int
    postings_budget: int
    context_weight: float
    embed_query: Callable[[], Floats] | None


class Ranking(Protocol):
    """The core's ranking of one fetch, handed the candidates once (pure CPU: call it anywhere).

    Storage asks it which extra inputs it needs: the reach's newest observation time (`wants_anchor`),
    then, given that time, whether each ranker reads a time window again (`window`), whether the
    candidates' light columns are needed (`light_detail`: None for no, else whether the detailed ones
    are), then given the candidates which terms' holders the `links` stage reads (`link_terms`), and
    finally calls `page` for the ranked page and whether more follow. `wants_stats` says whether `page`
    reads the `ScopeStats` (a storage that computes them only for it may hand empty ones otherwise; its
    lexical ranker reads them anyway).
    """

    @property
    def wants_anchor(self) -> bool: ...

    @property
    def wants_stats(self) -> bool: ...

    @property
    def why(self) -> Mapping[int, Why] | None:
        """After `page`, when the fetch asked to explain: each page row's signals, by row key."""
        ...

    def light_detail(self, anchor: datetime | None) -> bool | None: ...

    def window(self, flt: MetaFilter, anchor: datetime | None) -> MetaFilter | None:
        """Given the anchor: a narrower filter (the days the query names) that each ranker reads again,
        its rows merged into its list with `pipeline.merged`; None for no second read."""
        ...

    def link_terms(
        self,
        lexical: Ranked,
        semantic: Ranked,
        light: dict[int, Light],
        stats: ScopeStats,
        anchor: datetime | None,
    ) -> tuple[str, ...]:
        """Given the candidates: the analysed terms (names the best rows mention) whose holders in the
        reach the `links` stage reads; empty for none. Storage takes the reach's statistics of these
        terms, keeps the `rare` ones and reads their holders in one statement (the rows inside the
        filter whose own text holds a term: the context field off), shaped by `links.holders`,
        `link_rows` rows a term at most."""
        ...

    @property
    def link_rows(self) -> int: ...

    def rare(self, terms: Sequence[str], stats: ScopeStats) -> list[str]: ...

    def page(
        self,
        lexical: Ranked,
        semantic: Ranked,
        light: dict[int, Light],
        stats: ScopeStats,
        anchor: datetime | None,
        holding: Mapping[str, Sequence[int]] | None = None,
    ) -> tuple[Ranked, bool]:
        """The ranked page and whether more follow; `holding` is each rare term's rows (`link_terms`)."""
        ...


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What a foreground index build did: the index file (None when there was nothing to index), its
    rows, the rows this build added, whether it started from empty, how long it took, and from how
    many rows reads use it."""

    path: Path | None
    rows: int
    added: int
    fresh: bool
    seconds: float
    threshold: int


@dataclass(frozen=True, slots=True)
class FetchPage:
    """One fetched page: the snapshot it read (for the next cursor), its hits and whether more follow."""

    snapshot: int
    hits: list[Hit]
    more: bool


def candidate_rowids(lexical: Ranked, semantic: Ranked) -> list[int]:
    """Every candidate once: the rows whose light columns ranking reads."""
    return list({r for r, _ in lexical} | {r for r, _ in semantic})


def page_hits(
    page: Ranked, items: Mapping[int, MemoryItem], why: Mapping[int, Why] | None = None
) -> list[Hit]:
    """The ranked page as hits (scores to six places), with each row's `why` when the fetch asked; a row
    forgotten since it was ranked drops out."""
    if why is not None:
        return [Hit(items[r], round(s, 6), why.get(r)) for r, s in page if r in items]
    return [Hit(items[r], round(s, 6)) for r, s in page if r in items]


class Storage(ABC):
    """Rows behind the engine core. An engine implements these 15 methods and gets the whole contract;
    three more (`stored_schema`, `upgrade`, `build_index`) serve maintenance where a storage has it.

    Attributes a storage sets: `name` (the engine's name in its descriptor), `schema` (its storage
    version, shown in the descriptor), `embedder` (whose vectors it keeps; None: lexical only) and
    `analyzer` (how it indexes words; the core analyses queries with the same one).
    """

    name: str
    schema: int
    embedder: Embedder | None
    analyzer: Analyzer

    # -- lifetime -------------------------------------------------------------------------------------

    @abstractmethod
    async def cursor_key(self, op: str) -> bytes:
        """The storage's secret cursor key (created once, kept with the data, the same for every process
        over the same storage); the first call may open the storage and migrate it."""

    @abstractmethod
    async def close(self) -> None:
        """Release everything; writes already acknowledged are durable. Idempotent."""

    # -- writes ---------------------------------------------------------------------------------------

    @abstractmethod
    async def active_keys(self, op: str, items: Sequence[NewItem], keys: Sequence[str]) -> set[str]:
        """Which content keys (`keys[i]` is `items[i]`'s) already have an active version, so their stores
        will be replays and need no embedding. A hint: `write` decides again under its lock."""

    @abstractmethod
    async def write(self, op: str, pending: Sequence[Pending], now: datetime) -> list[StoreResult]:
        """Store each item in order, in one transaction, by the version rules (engines/versions.py): a
        replay of active content returns its id; a correction or new content writes a version (observed
        at `now` unless the item says when) and closes what it supersedes. An item without a vector gets
        one from the embedder. Returns one result per item, in order; all or nothing."""

    @abstractmethod
    async def forget_ids(
        self, op: str, ids: Sequence[str], reach: Reach | None, now: datetime
    ) -> tuple[list[str], list[str]]:
        """Mark forgotten at `now` the ids found active or superseded under `reach`, and transitively
        what cites them as evidence; take them out of every index. Returns (forgotten: the asked ids
        found, then the derived ones; skipped: the asked ids not found)."""

    @abstractmethod
    async def forget_filter(self, op: str, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
        """`forget_ids` for what the filter reads (confined to `reach` too); returns the ids forgotten."""

    @abstractmethod
    async def purge(self, op: str, reach: Reach | None, forgotten_before: int | None) -> int:
        """Delete for good the forgotten rows under `reach` (forgotten before the given microsecond
        instant, if any) with everything derived from them, so none of their bytes stays readable.
        Returns how many rows went."""

    @abstractmethod
    async def import_records(self, op: str, records: Sequence[StoredRecord]) -> ImportResult:
        """Write checked versions exactly as given, in one transaction, rebuilding what derives from them;
        a version whose id is present is skipped. Vectors of another embedder are dropped."""

    # -- reads ----------------------------------------------------------------------------------------

    @abstractmethod
    async def get(self, op: str, ids: Sequence[str], reach: Reach | None) -> GetResult:
        """The items with these ids under `reach` (superseded ones too), in the asked order, without
        repeats; forgotten ones as tombstones; the rest missing."""

    @abstractmethod
    async def list_page(
        self, op: str, flt: MetaFilter, limit: int, after: ListCursor | None
    ) -> tuple[list[MemoryItem], bool]:
        """Up to `limit` items the filter reads, newest observation first (ties by id), after the
        cursor's position; and whether more follow."""

    @abstractmethod
    async def explore(self, op: str, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
        """The filter's items counted by the facet's value, the largest `limit` buckets."""

    @abstractmethod
    async def fetch(self, op: str, query: CandidateQuery, ranking: Ranking) -> FetchPage:
        """Generate candidates inside the filter and hand them to `ranking` once.

        Lexical candidates (unless the mode is semantic): the best `want` rows by bm25 over the filter's
        rows with the reach's own statistics (`ScopeStats`, also returned to ranking), title, body and
        context fields weighted by `retrieval.config.field_weights`; when a lexical query has no content
        words, the newest rows instead. Semantic candidates (unless lexical): the best `want` rows by
        cosine to the query vector. Both as (rowid, score in [0, 1]) best first, only rows at or below
        the snapshot. Then the anchor and light columns if ranking wants them, `ranking.page`, and the
        page's items (rows forgotten meanwhile drop out)."""

    @abstractmethod
    async def expand(self, op: str, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of the memories the request's filter sees (engines/walk.py)."""

    @abstractmethod
    def export_records(self, vectors: bool) -> AsyncIterator[StoredRecord]:
        """Every version in the order written, forgotten ones as tombstones, from one snapshot; with
        `vectors`, each carries the vector it has."""

    # -- maintenance (optional: the defaults say the storage has none) --------------------------------

    async def stored_schema(self, op: str) -> int | None:
        """The schema version the stored data has, read without migrating it; None when nothing is
        stored yet (the first write creates the store)."""
        raise Unsupported(f"{op}: the {self.name} engine does not report its schema version")

    async def check_integrity(self, op: str) -> bool:
        """Check the stored bytes for damage, raising the damaged-store error; False when the engine
        has no check of its own to run (a database server keeps its own)."""
        del op
        return False

    async def upgrade(self, op: str) -> tuple[int, int]:
        """Apply the migrations this version knows (safe to run again): the schema before and after."""
        raise Unsupported(f"{op}: the {self.name} engine has no schema migrations to apply")

    async def build_index(
        self, op: str, force: bool, progress: Callable[[int, int], None] | None
    ) -> IndexReport:
        """Build, or bring up to date, the vector index reads use, in the foreground."""
        raise Unsupported(f"{op}: the {self.name} engine has no vector index to build ahead")
