"""Reading by pages: the cursor loop of `list` and `fetch`, and the one-item read, in one place.

The loops follow `next_cursor` until there is none (or a page comes back empty, so a cursor that never
ends cannot loop forever). A caller that has enough stops iterating; no further page is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from tinymemory.api.engine import MemoryEngine
from tinymemory.api.filters import MetaFilter
from tinymemory.api.items import MemoryItem
from tinymemory.api.requests import MAX_LIMIT, FetchRequest, Hit, ListRequest


async def listed(engine: MemoryEngine, flt: MetaFilter, limit: int = MAX_LIMIT) -> AsyncIterator[MemoryItem]:
    """Every item `list` yields for the filter, newest first, read `limit` at a time."""
    cursor: str | None = None
    while True:
        page = await engine.list(ListRequest(filter=flt, limit=limit, cursor=cursor))
        for item in page.items:
            yield item
        cursor = page.next_cursor
        if cursor is None or not page.items:
            return


async def newest(engine: MemoryEngine, flt: MetaFilter) -> MemoryItem | None:
    """The newest item `list` yields for the filter (most recently observed), or None."""
    page = await engine.list(ListRequest(filter=flt, limit=1))
    return page.items[0] if page.items else None


async def list_all(engine: MemoryEngine, flt: MetaFilter, limit: int = MAX_LIMIT) -> list[MemoryItem]:
    """Every item `list` yields for the filter, newest first."""
    return [item async for item in listed(engine, flt, limit)]


async def fetched(engine: MemoryEngine, request: FetchRequest) -> AsyncIterator[Hit]:
    """Every hit `fetch` yields for the request, best first, a page of `request.limit` at a time."""
    cursor = request.cursor
    while True:
        page = await engine.fetch(replace(request, cursor=cursor))
        for hit in page.hits:
            yield hit
        cursor = page.next_cursor
        if cursor is None or not page.hits:
            return
