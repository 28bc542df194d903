"""Writers on separate connections (two engines, as two processes or replicas would be) stay race-free:
the per-tenant write locks serialise replays, supersessions and thread links."""

from __future__ import annotations

import asyncio

import pytest

from tinymemory.api import About, ItemKind, ListRequest, MetaFilter, Namespace, Reach
from tinymemory.engines.postgres import PostgresEngine

from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio

CITY = About("user", "city")


async def _active(engine: PostgresEngine, flt: MetaFilter) -> list[str]:
    return [i.id for i in (await engine.list(ListRequest(filter=flt, limit=100))).items]


async def test_concurrent_supersession_through_two_engines_leaves_one_active_version(pg_dsn: str) -> None:
    async with (
        PostgresEngine(pg_dsn, embedder=HashEmbedder(), max_size=4) as a,
        PostgresEngine(pg_dsn, embedder=HashEmbedder(), max_size=4) as b,
    ):
        await a.store(note("warm the schema", "team:x"))  # both open their pools before the race
        await b.store(note("warm the schema", "team:x"))
        every_closed: list[str] = []
        for round_ in range(3):
            writes = [
                (a if n % 2 else b).store(note(f"lives in city {round_}-{n}", "team:x/user:u", about=CITY))
                for n in range(8)
            ]
            results = await asyncio.gather(*writes)
            active = await _active(a, MetaFilter(about=CITY))
            assert len(active) == 1
            assert active[0] in {r.id for r in results}
            closed = [sid for r in results for sid in r.superseded]
            assert len(closed) == len(set(closed)), "a version was closed twice"
            every_closed += closed
        # every version but the active one was closed, each by exactly one store
        assert len(every_closed) == len(set(every_closed)) == 3 * 8 - 1


async def test_concurrent_replays_through_two_engines_make_one_row(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None) as a, PostgresEngine(pg_dsn, embedder=None) as b:
        same = note("stored by everyone at once", "team:x")
        results = await asyncio.gather(*((a if n % 2 else b).store(same) for n in range(10)))
        assert len({r.id for r in results}) == 1
        assert sorted(r.replayed for r in results) == [False] + [True] * 9
        assert await _active(b, MetaFilter()) == [results[0].id]


async def test_writes_to_other_tenants_do_not_wait_on_each_other(pg_dsn: str) -> None:
    """Different tenants take different locks: interleaved batches all land, each in its own tenant."""
    async with PostgresEngine(pg_dsn, embedder=None) as a, PostgresEngine(pg_dsn, embedder=None) as b:
        writes = [
            (a if n % 2 else b).store_many(
                [
                    note(f"turn {n}-{k}", f"team:t{n % 3}", ItemKind.CONVERSATION, thread_id="t")
                    for k in range(5)
                ]
            )
            for n in range(9)
        ]
        await asyncio.gather(*writes)
        for t in range(3):
            reach = Reach.subtree(Namespace.parse(f"team:t{t}"))
            assert len(await _active(a, MetaFilter(reach=reach))) == 15
