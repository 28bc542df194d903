"""Fetch cursors page over a snapshot (rows written after the first page never enter later pages), are
sealed with the database's key (any engine on the database reads them), and refuse tampering."""

from __future__ import annotations

import pytest

from tinymemory.api import FetchMode, FetchRequest, InvalidRequest, ListRequest
from tinymemory.engines.postgres import PostgresEngine

from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("mode", list(FetchMode), ids=str)
async def test_pages_read_the_snapshot_of_the_first_page(pg_dsn: str, mode: FetchMode) -> None:
    async with (
        PostgresEngine(pg_dsn, embedder=HashEmbedder()) as a,
        PostgresEngine(pg_dsn, embedder=HashEmbedder()) as b,
    ):
        before = [(await a.store(note(f"walrus sighting number {n}", "team:x"))).id for n in range(10)]
        seen: list[str] = []
        later: list[str] = []
        cursor: str | None = None
        engines = [a, b]
        pages = 0
        while True:
            # pages alternate between the engines: the cursor is the database's, not one engine's
            page = await engines[pages % 2].fetch(
                FetchRequest("walrus sighting", mode=mode, limit=3, cursor=cursor)
            )
            seen.extend(h.item.id for h in page.hits)
            pages += 1
            # a stronger match lands between pages; it must not enter this paging
            later.append((await b.store(note(f"walrus sighting walrus sighting {pages}", "team:x"))).id)
            cursor = page.next_cursor
            if cursor is None:
                break
            assert pages < 20
        assert len(seen) == len(set(seen)), "a page repeated a hit"
        assert set(before) <= set(seen)
        assert not set(later) & set(seen), "a row written after the first page entered the paging"
        fresh = await a.fetch(FetchRequest("walrus sighting", mode=mode, limit=3))
        assert {h.item.id for h in fresh.hits} & set(later), "a new fetch sees the new rows"


async def test_a_tampered_or_foreign_cursor_is_refused(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None) as engine:
        for n in range(5):
            await engine.store(note(f"otter fact {n}"))
        page = await engine.list(ListRequest(limit=2))
        assert page.next_cursor is not None
        bad = page.next_cursor[:-2] + ("AA" if not page.next_cursor.endswith("AA") else "BB")
        with pytest.raises(InvalidRequest, match="`cursor` is not valid"):
            await engine.list(ListRequest(limit=2, cursor=bad))
        with pytest.raises(InvalidRequest, match="`cursor` is not valid"):
            await engine.fetch(FetchRequest("otter", cursor=page.next_cursor))  # a list cursor
