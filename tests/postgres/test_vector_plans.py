"""Semantic search plans: exact for small stores or narrow filters, the HNSW index past that (its hits
re-checked against the filter, widening until enough pass)."""

from __future__ import annotations

import psycopg
import pytest

from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
from tinymemory.engines.postgres import PostgresEngine, semantic
from tinymemory.engines.postgres.schema import vector_index_name

from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


async def _fill(engine: PostgresEngine) -> None:
    items = [
        note(
            f"{WORDS[n % 10]} {WORDS[(n * 3) % 10]} {WORDS[(n * 7) % 10]} item {n}",
            f"team:big/user:u{n % 20}",
        )
        for n in range(80)
    ]
    await engine.store_many(items)


async def _ids(engine: PostgresEngine, query: str, flt: MetaFilter, limit: int = 5) -> list[str]:
    result = await engine.fetch(FetchRequest(query, mode=FetchMode.SEMANTIC, filter=flt, limit=limit))
    return [h.item.id for h in result.hits]


async def test_small_stores_search_exactly(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        await _fill(engine)
        await _ids(engine, "alpha bravo", MetaFilter())
        assert engine.last_semantic_plan is semantic.Plan.EXACT


async def test_large_reads_use_the_index_and_agree_with_exact(
    pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        await _fill(engine)
        one_user = MetaFilter(reach=Reach.exact(Namespace.parse("team:big/user:u3")))
        exact = await _ids(engine, "alpha bravo", MetaFilter(), limit=3)
        exact_user = await _ids(engine, "alpha bravo", one_user, limit=10)
        assert engine.last_semantic_plan is semantic.Plan.FILTER_FIRST
        assert len(exact_user) == 4
        monkeypatch.setattr(semantic, "EXACT_MAX_ROWS", 10)
        approx = await _ids(engine, "alpha bravo", MetaFilter(), limit=3)
        assert engine.last_semantic_plan is semantic.Plan.HNSW
        assert approx[0] == exact[0]
        # a filter reading few rows still reads only them, exactly
        assert await _ids(engine, "alpha bravo", one_user, limit=10) == exact_user
        assert engine.last_semantic_plan is semantic.Plan.FILTER_FIRST
        # past the exact plan's size, the index's hits are filtered and the search widens until enough pass
        monkeypatch.setattr(semantic, "EXACT_MAX_ROWS", 2)
        widened = await _ids(engine, "alpha bravo", one_user, limit=10)
        assert engine.last_semantic_plan is semantic.Plan.HNSW
        assert sorted(widened) == sorted(exact_user)


async def test_the_index_serves_the_query(pg_dsn: str) -> None:
    """The HNSW query must match the partial expression index, or Postgres would scan every vector."""
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        await _fill(engine)
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("SELECT set_config('tinymemory.tenants', '*', false)")
        conn.execute("SET enable_seqscan = off")
        vec = "[" + ",".join(["0.1"] * 32) + "]"
        plan = conn.execute(
            "EXPLAIN SELECT v.item_rowid FROM vectors v WHERE v.embedder = 'hash-32' AND v.dim = 32"
            " AND v.item_rowid <= 1000 ORDER BY vec::vector(32) <=> %s::vector(32) LIMIT 10",
            (vec,),
        ).fetchall()
    assert vector_index_name("hash-32", 32) in "\n".join(str(r[0]) for r in plan)
