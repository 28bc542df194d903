"""Cursors: paging list and fetch while other writes land between pages."""

from __future__ import annotations

import pytest

from tinymemory.api import FetchMode, FetchRequest, ListRequest, MemoryEngine, MetaFilter
from tinymemory.testing import EngineFactory

from .helpers import at, item

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them


async def test_list_pages_survive_concurrent_inserts(engine: MemoryEngine) -> None:
    before = [(await engine.store(item(f"paged note {m}", observed_at=at(minutes=m)))).id for m in range(10)]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await engine.list(ListRequest(limit=3, cursor=cursor))
        seen.extend(i.id for i in page.items)
        pages += 1
        # a newer item, an older item and one in the middle land between every pair of pages
        await engine.store(item(f"newer {pages}", observed_at=at(minutes=100 + pages)))
        await engine.store(item(f"older {pages}", observed_at=at(minutes=-100 - pages)))
        await engine.store(item(f"middle {pages}", observed_at=at(minutes=4.5 + pages / 100)))
        cursor = page.next_cursor
        if cursor is None:
            break
        assert pages < 50, "list cursors never ended"
    assert len(seen) == len(set(seen)), "a page repeated an item"
    assert set(before) <= set(seen), "an item that existed before paging began was skipped"
    positions = [seen.index(i) for i in reversed(before)]
    assert positions == sorted(positions), "pages are not newest first"


async def test_a_cursor_keeps_its_filter(engine: MemoryEngine) -> None:
    wanted = [
        (await engine.store(item(f"kept {m}", repo="r1", observed_at=at(minutes=m)))).id for m in range(4)
    ]
    for m in range(4):
        await engine.store(item(f"other {m}", repo="r2", observed_at=at(minutes=m)))
    flt = MetaFilter(repo="r1")
    first = await engine.list(ListRequest(filter=flt, limit=2))
    assert first.next_cursor is not None
    second = await engine.list(ListRequest(filter=flt, limit=10, cursor=first.next_cursor))
    assert [i.id for i in first.items + second.items] == list(reversed(wanted))


@pytest.mark.parametrize("mode", list(FetchMode), ids=str)
async def test_fetch_pages_survive_concurrent_inserts(
    engine: MemoryEngine, engine_factory: EngineFactory, mode: FetchMode
) -> None:
    if mode not in engine.descriptor.fetch_modes:
        pytest.skip(f"{engine_factory.name} does not serve {mode.value}")
    before = [(await engine.store(item(f"walrus sighting number {n}"))).id for n in range(10)]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        result = await engine.fetch(FetchRequest(query="walrus sighting", mode=mode, limit=3, cursor=cursor))
        assert result.mode is mode
        seen.extend(h.item.id for h in result.hits)
        pages += 1
        await engine.store(item(f"walrus sighting walrus late arrival {pages}"))
        await engine.store(item(f"unrelated text {pages}"))
        cursor = result.next_cursor
        if cursor is None:
            break
        assert pages < 50, "fetch cursors never ended"
    assert len(seen) == len(set(seen)), "a page repeated a hit"
    assert set(before) <= set(seen), "a hit that existed before paging began was skipped"
