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
        if FetchMode.HYBRID in self.fetch_modes:
            return FetchMode.HYBRID
        return self.fetch_modes[0] if self.fetch_modes else None


@runtime_checkable
class MemoryEngine(Protocol):
    """Async storage contract. Every method validates its request and raises InvalidRequest (writing
    nothing) on bad input; reads never return forgotten memory."""

    @property
    def descriptor(self) -> EngineDescriptor: ...

    async def store(self, item: NewItem) -> StoreResult: ...

    async def store_many(self, items: Sequence[NewItem]) -> list[StoreResult]:
        """All or nothing, in one transaction; embeddings computed in batches."""
        ...

    async def fetch(self, request: FetchRequest) -> FetchResult: ...

    async def list(self, request: ListRequest) -> ListResult: ...

    async def get(self, request: GetRequest) -> GetResult: ...

    async def explore(self, request: ExploreRequest) -> ExploreResult: ...

    async def forget(self, request: ForgetRequest) -> ForgetResult: ...

    async def purge(self, request: PurgeRequest) -> PurgeResult: ...

    async def recall(self, request: RecallRequest) -> RecallResult: ...

    async def expand(self, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of visible memories from a named entity (see api.relations)."""
        ...

    async def close(self) -> None: ...
