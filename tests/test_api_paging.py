"""api.paging: every page of a list or fetch, in order, and no page read past what the caller takes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchRequest, ListRequest, ListResult, MetaFilter
from tinymemory.api.paging import fetched, list_all, listed, newest
from tinymemory.engines.sqlite import SqliteEngine

T0 = datetime(2024, 3, 1, tzinfo=UTC)


class CountingEngine(SqliteEngine):
    """The SQLite engine, counting the pages it serves; `stuck` makes list answer an empty page that
    still carries a cursor."""

    pages = 0
    stuck = False

    async def list(self, req: ListRequest) -> ListResult:
        self.pages += 1
        if self.stuck:
            return ListResult(items=(), next_cursor="again")
        return await super().list(req)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[CountingEngine]:
    async with CountingEngine(tmp_path / "mem.db", embedder=HashEmbedder()) as eng:
        await eng.store_many(
            [note(f"garden note {i} about tomatoes", observed=T0 + timedelta(minutes=i)) for i in range(25)]
        )
        yield eng


@pytest.mark.asyncio
async def test_list_all_reads_every_page_newest_first(engine: CountingEngine) -> None:
    one_page = (await engine.list(ListRequest(filter=MetaFilter(), limit=25))).items
    engine.pages = 0
    assert await list_all(engine, MetaFilter(), limit=10) == list(one_page)
    assert engine.pages == 3


@pytest.mark.asyncio
async def test_listed_reads_no_page_past_what_is_taken(engine: CountingEngine) -> None:
    taken = []
    async for item in listed(engine, MetaFilter(), limit=10):
        taken.append(item)
        if len(taken) == 10:
            break
    assert engine.pages == 1


@pytest.mark.asyncio
async def test_an_empty_page_ends_the_loop_even_with_a_cursor(engine: CountingEngine) -> None:
    engine.stuck = True
    assert await list_all(engine, MetaFilter()) == []
    assert engine.pages == 1


@pytest.mark.asyncio
async def test_fetched_follows_the_cursor_to_the_last_hit(engine: CountingEngine) -> None:
    request = FetchRequest(query="garden tomatoes", limit=7)
    hits = [h.item.id async for h in fetched(engine, request)]
    assert len(hits) == len(set(hits)) == 25


@pytest.mark.asyncio
async def test_newest_is_the_most_recently_observed_match_or_none(engine: CountingEngine) -> None:
    found = await newest(engine, MetaFilter())
    assert found is not None and found.text == "garden note 24 about tomatoes"
    assert await newest(engine, MetaFilter(tags_any=("nothing-has-this",))) is None
