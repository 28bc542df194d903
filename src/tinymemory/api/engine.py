"""The MemoryEngine protocol: what every storage engine implements and every upper layer calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tinymemory.api.filters import FetchMode
from tinymemory.api.items import NewItem
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import (
    ExploreRequest,
    ExploreResult,
    FetchRequest,
    FetchResult,
    ForgetRequest,
    ForgetResult,
    GetRequest,
    GetResult,
    ListRequest,
    ListResult,
    PurgeRequest,
    PurgeResult,
    RecallRequest,
    RecallResult,
    StoreResult,
)


@dataclass(frozen=True, slots=True)
class EngineDescriptor:
    """What an engine is and serves. `fetch_modes` drives memory_fetch's mode enum."""

    name: str
    version: str
    fetch_modes: tuple[FetchMode, ...]
    embedder: str | None = None

    def default_mode(self) -> FetchMode | None:
        """The mode a fetch without one runs in: hybrid when served (it ranks best), else the first mode
        the engine lists; None for an engine that serves no fetch."""
        if FetchMode.HYBRID in self.fetch_modes:
            return FetchMode.HYBRID
        return self.fetch_modes[0] if self.fetch_modes else None


@runtime_checkable
class MemoryEngine(Protocol):
    """Async storage contract. Every method validates its request and raises InvalidRequest (writing
    nothing) on bad input; reads never return forgotten memory."""

    @property
    def descriptor(self) -> EngineDescriptor:
        """What the engine is and serves (its fetch modes and embedder), so callers offer only those."""
        ...

    async def store(self, item: NewItem) -> StoreResult:
        """Store one memory and return its content-derived id; storing the same content again is a
        replay (same id, `replayed=True`), so a host may retry without duplicates."""
        ...

    async def store_many(self, items: Sequence[NewItem]) -> list[StoreResult]:
        """All or nothing, in one transaction; embeddings computed in batches."""
        ...

    async def fetch(self, request: FetchRequest) -> FetchResult:
        """Search the memories inside the filter's reach by a query (lexical, semantic or hybrid), best
        first; hits and scores depend only on memories inside that reach."""
        ...

    async def list(self, request: ListRequest) -> ListResult:
        """Page through the memories a filter matches, newest first, with an opaque cursor that stays
        stable while other writers insert."""
        ...

    async def get(self, request: GetRequest) -> GetResult:
        """Read memories by id; ids outside the reach, unknown or forgotten come back in `missing`, so
        a reader cannot tell another tenant's id from one that never existed."""
        ...

    async def explore(self, request: ExploreRequest) -> ExploreResult:
        """Count the matched memories by one facet (kind, source, tag...), to show what a store holds
        without reading it; there is no namespace facet, which would leak the tree."""
        ...

    async def forget(self, request: ForgetRequest) -> ForgetResult:
        """Soft-delete memories by id (within a reach) or by a non-empty filter, and what cites them;
        every read stops seeing them at once, and `purge` later removes their bytes."""
        ...

    async def purge(self, request: PurgeRequest) -> PurgeResult:
        """Delete forgotten memories for good (their text, vectors, edges and index entries), so a
        forget can be made irreversible when the law or a user asks for it."""
        ...

    async def recall(self, request: RecallRequest) -> RecallResult:
        """Answer a question from the memories inside the reach, with the citations the answer used,
        so a host can show where every claim came from."""
        ...

    async def expand(self, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of visible memories from a named entity (see api.relations)."""
        ...

    async def close(self) -> None:
        """Release the engine's connections, files and background work; the engine serves no more."""
        ...
