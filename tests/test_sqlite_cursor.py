"""Cursors: fetch pages freeze at the first page's snapshot; list pages are keyset; foreign ones fail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, InvalidRequest, ListRequest, MetaFilter, TimeHint
from tinymemory.engines.sqlite import SqliteEngine

T0 = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.fixture
async def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with SqliteEngine(tmp_path / "mem.db", embedder=HashEmbedder()) as eng:
        await eng.store_many(
            [note(f"garden note {i} about tomatoes", observed=T0 + timedelta(minutes=i)) for i in range(40)]
        )
        yield eng


async def page_through(engine: SqliteEngine, req: FetchRequest, *, insert_between: bool) -> list[str]:
    seen: list[str] = []
    res = await engine.fetch(req)
    n = 0
    while True:
        seen += [h.item.id for h in res.hits]
        if res.next_cursor is None:
            return seen
        if insert_between:
            n += 1
            await engine.store(note(f"late tomatoes tomatoes garden {n}"))
        res = await engine.fetch(
            FetchRequest(req.query, mode=req.mode, limit=req.limit, cursor=res.next_cursor)
        )


@pytest.mark.parametrize("mode", list(FetchMode))
async def test_pages_ignore_rows_inserted_after_the_first_page(engine: SqliteEngine, mode: FetchMode) -> None:
    req = FetchRequest("tomatoes garden", mode=mode, limit=7)
    quiet = await page_through(engine, req, insert_between=False)
    assert len(quiet) == len(set(quiet)) == 40
    busy = await page_through(engine, req, insert_between=True)
    assert busy == quiet


async def test_a_cursor_for_another_query_names_the_cursor(engine: SqliteEngine) -> None:
    first = await engine.fetch(FetchRequest("tomatoes", limit=5))
    assert first.next_cursor is not None
    for other in (
        FetchRequest("potatoes", limit=5, cursor=first.next_cursor),
        FetchRequest("tomatoes", limit=5, cursor=first.next_cursor, mode=FetchMode.LEXICAL),
        FetchRequest("tomatoes", limit=5, cursor=first.next_cursor, filter=MetaFilter(repo="x")),
        FetchRequest(
            "tomatoes", limit=5, cursor=first.next_cursor, time_hint=TimeHint(T0, T0 + timedelta(1))
        ),
    ):
        with pytest.raises(InvalidRequest, match=r"^fetch: `cursor`"):
            await engine.fetch(other)
    list_page = await engine.list(ListRequest(limit=5))
    assert list_page.next_cursor is not None
    with pytest.raises(InvalidRequest, match=r"^fetch: `cursor`"):
        await engine.fetch(FetchRequest("tomatoes", cursor=list_page.next_cursor))
    with pytest.raises(InvalidRequest, match=r"^list: `cursor`"):
        await engine.list(ListRequest(cursor=first.next_cursor))


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.text(min_size=1, max_size=80))
async def test_garbage_cursors_are_invalid_requests(engine: SqliteEngine, junk: str) -> None:
    with pytest.raises(InvalidRequest, match=r"^fetch: `cursor`"):
        await engine.fetch(FetchRequest("tomatoes", cursor=junk))
    with pytest.raises(InvalidRequest, match=r"^list: `cursor`"):
        await engine.list(ListRequest(cursor=junk))


async def test_list_is_newest_first_and_keyset_paged_under_inserts(engine: SqliteEngine) -> None:
    seen: list[str] = []
    res = await engine.list(ListRequest(limit=6))
    observed = [i.meta.observed_at for i in res.items]
    assert observed == sorted(observed, reverse=True)  # type: ignore[type-var]
    while True:
        seen += [i.id for i in res.items]
        if res.next_cursor is None:
            break
        await engine.store(note("brand new", observed=T0 + timedelta(days=30)))  # newer: before the cursor
        res = await engine.list(ListRequest(limit=6, cursor=res.next_cursor))
    assert len(seen) == len(set(seen)) == 40
