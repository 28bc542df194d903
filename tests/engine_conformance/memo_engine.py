"""An engine of one module, as docs/architecture/engines.md tells a newcomer to write one.

`MemoStorage` implements `tinymemory.engines.storage.Storage` by handing every call to SQLite's
in-memory storage, so the test proves the interface is complete: the engine core over a storage it
does not know, opened by `open_engine("memo://...")` through a registered entry point, passes the
whole conformance suite (registration.py installs the entry point).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

from tinymemory.api.filters import Facet, MetaFilter
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.namespace import Reach
from tinymemory.api.records import ImportResult, StoredRecord
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import ExploreResult, GetResult, StoreResult
from tinymemory.engines.core import StorageEngine
from tinymemory.engines.cursors import ListCursor
from tinymemory.engines.sqlite.engine import SqliteStorage
from tinymemory.engines.storage import CandidateQuery, FetchPage, Indexing, Ranking, Storage
from tinymemory.engines.versions import Pending
from tinymemory.retrieval.config import DEFAULT_CONFIG


class MemoStorage(Storage):
    """Rows in a private in-memory SQLite database, reached only through the storage interface."""

    name = "memo"
    schema = 1

    def __init__(self) -> None:
        indexing = Indexing.choose("memo", None, None, DEFAULT_CONFIG)  # lexical only
        self.analyzer = indexing.analyzer
        self.embedder = indexing.embedder
        self._rows = SqliteStorage(":memory:", indexing)

    async def cursor_key(self, op: str) -> bytes:
        return await self._rows.cursor_key(op)

    async def close(self) -> None:
        await self._rows.close()

    async def active_keys(self, op: str, items: Sequence[NewItem], keys: Sequence[str]) -> set[str]:
        return await self._rows.active_keys(op, items, keys)

    async def write(self, op: str, pending: Sequence[Pending], now: datetime) -> list[StoreResult]:
        return await self._rows.write(op, pending, now)

    async def forget_ids(
        self, op: str, ids: Sequence[str], reach: Reach | None, now: datetime
    ) -> tuple[list[str], list[str]]:
        return await self._rows.forget_ids(op, ids, reach, now)

    async def forget_filter(self, op: str, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
        return await self._rows.forget_filter(op, flt, reach, now)

    async def purge(self, op: str, reach: Reach | None, forgotten_before: int | None) -> int:
        return await self._rows.purge(op, reach, forgotten_before)

    async def import_records(self, op: str, records: Sequence[StoredRecord]) -> ImportResult:
        return await self._rows.import_records(op, records)

    async def get(self, op: str, ids: Sequence[str], reach: Reach | None) -> GetResult:
        return await self._rows.get(op, ids, reach)

    async def list_page(
        self, op: str, flt: MetaFilter, limit: int, after: ListCursor | None
    ) -> tuple[list[MemoryItem], bool]:
        return await self._rows.list_page(op, flt, limit, after)

    async def explore(self, op: str, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
        return await self._rows.explore(op, facet, flt, limit)

    async def fetch(self, op: str, query: CandidateQuery, ranking: Ranking) -> FetchPage:
        return await self._rows.fetch(op, query, ranking)

    async def expand(self, op: str, request: ExpandRequest) -> ExpandResult:
        return await self._rows.expand(op, request)

    async def export_records(self, vectors: bool) -> AsyncIterator[StoredRecord]:
        async for record in self._rows.export_records(vectors):
            yield record


def open_memo(target: str, *, embedder: Any = None, **kw: Any) -> StorageEngine:
    """The entry point's opener: `open_engine("memo://anything", clock=...)` lands here."""
    return StorageEngine(MemoStorage(), **kw)
