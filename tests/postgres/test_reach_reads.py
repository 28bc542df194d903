"""A small reach's reads score the reach's own rows: exactly, and untouched by every row outside it.

The semantic side reads the rows the filter admits by their own indexes and scores each (filter-first)
while they are at most `semantic.EXACT_MAX_ROWS`; past that the HNSW index serves the read. Checked
here against a brute-force scan of the reach's stored vectors, on a real server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector_async

from tinymemory.api import ForgetRequest, MetaFilter, Namespace, Reach
from tinymemory.engines.postgres import PostgresEngine, db, search, semantic
from tinymemory.engines.postgres.search import max_rowid

from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
USER = "team:acme/user:u0"
SPACE = semantic.Space("hash-32", 32)


def _text(n: int) -> str:
    return f"{WORDS[n % 10]} {WORDS[(n * 3) % 7]} {WORDS[(n * 7) % 9]} {WORDS[(n // 10) % 10]} item {n}"


async def _fill(engine: PostgresEngine, users: int, per_user: int, offset: int = 0) -> None:
    """`users` users of `per_user` memories each, interleaved, so each user's rows are scattered."""
    await engine.store_many(
        [
            note(_text(offset + k * users + u), f"team:acme/user:u{u}" if u else USER)
            for k in range(per_user)
            for u in range(users)
        ]
    )


@pytest.fixture
async def conn(pg_dsn: str) -> AsyncIterator[psycopg.AsyncConnection[tuple[object, ...]]]:
    c = await db.connect("test", pg_dsn)
    try:
        await register_vector_async(c)  # as the engine's pool sets up each connection
        await c.execute("SELECT set_config('tinymemory.tenants', '*', false)")
        yield c
    finally:
        await c.close()


async def _brute_force(
    conn: psycopg.AsyncConnection[tuple[object, ...]], ns: str, qvec: np.ndarray, n: int
) -> list[tuple[int, float]]:
    """The reach's top `n` by cosine, from its stored vectors, scanned in numpy (ties by rowid)."""
    cur = await conn.execute(
        "SELECT i.rowid, v.vec::text FROM items i JOIN vectors v ON v.item_rowid = i.rowid"
        " WHERE i.ns = %s AND i.valid_to IS NULL AND i.forgotten_at IS NULL",
        (ns,),
    )
    rows = await cur.fetchall()
    rowids = np.array([int(str(r[0])) for r in rows])
    mat = np.array([[float(x) for x in str(r[1]).strip("[]").split(",")] for r in rows], dtype=np.float64)
    q = np.asarray(qvec, dtype=np.float64)
    cos = mat @ q / (np.linalg.norm(mat, axis=1) * np.linalg.norm(q))
    order = np.lexsort((rowids, -np.round(cos, 6)))[:n]
    return [(int(rowids[i]), float(np.clip(cos[i], 0.0, 1.0))) for i in order]


async def test_a_small_reach_returns_its_exact_top_k(
    pg_dsn: str, conn: psycopg.AsyncConnection[tuple[object, ...]]
) -> None:
    embedder = HashEmbedder()
    async with PostgresEngine(pg_dsn, embedder=embedder) as engine:
        await _fill(engine, users=8, per_user=40)
    snapshot = await max_rowid(conn)
    flt = MetaFilter(namespace=Namespace.parse(USER))
    for query in ("alpha bravo", "golf hotel india", "juliet item"):
        qvec = embedder.embed_query(query)
        got = await semantic.semantic(conn, SPACE, qvec, flt, snapshot, 10)
        assert got.plan is semantic.Plan.FILTER_FIRST
        want = await _brute_force(conn, USER, qvec, 10)
        assert [r for r, _ in got.ranked] == [r for r, _ in want]
        assert [s for _, s in got.ranked] == pytest.approx([s for _, s in want], abs=1e-5)


async def test_rows_outside_the_reach_move_no_hit_nor_score(
    pg_dsn: str, conn: psycopg.AsyncConnection[tuple[object, ...]]
) -> None:
    """Other users' and another tenant's rows, many of them close to the query, change nothing."""
    embedder = HashEmbedder()
    flt = MetaFilter(reach=Reach.exact(Namespace.parse(USER)))
    qvec = embedder.embed_query("alpha bravo charlie")
    async with PostgresEngine(pg_dsn, embedder=embedder) as engine:
        await _fill(engine, users=1, per_user=30)
        before = await semantic.semantic(conn, SPACE, qvec, flt, await max_rowid(conn), 5)
        others = [note(_text(n), f"team:acme/user:u{1 + n % 6}") for n in range(240)]
        others += [note(f"alpha bravo charlie {n}", f"team:other/user:u{n % 3}") for n in range(90)]
        await engine.store_many(others)
    after = await semantic.semantic(conn, SPACE, qvec, flt, await max_rowid(conn), 5)
    assert before.plan is after.plan is semantic.Plan.FILTER_FIRST
    assert after.ranked == before.ranked
    assert [r for r, _ in after.ranked] == [r for r, _ in await _brute_force(conn, USER, qvec, 5)]


async def test_a_reach_past_the_cap_is_served_by_the_index(
    pg_dsn: str, conn: psycopg.AsyncConnection[tuple[object, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder()
    async with PostgresEngine(pg_dsn, embedder=embedder) as engine:
        await _fill(engine, users=2, per_user=60)
    snapshot = await max_rowid(conn)
    flt = MetaFilter(namespace=Namespace.parse(USER))
    qvec = embedder.embed_query("delta echo foxtrot")
    exact = await semantic.semantic(conn, SPACE, qvec, flt, snapshot, 5)
    assert exact.plan is semantic.Plan.FILTER_FIRST
    monkeypatch.setattr(semantic, "EXACT_MAX_ROWS", 20)
    approx = await semantic.semantic(conn, SPACE, qvec, flt, snapshot, 5)
    assert approx.plan is semantic.Plan.HNSW
    own = {r for r, _ in await _brute_force(conn, USER, qvec, 1000)}
    assert len(approx.ranked) == 5 and {r for r, _ in approx.ranked} <= own
    assert approx.ranked[0][0] == exact.ranked[0][0]


async def test_forgotten_and_empty_reaches_score_nothing(
    pg_dsn: str, conn: psycopg.AsyncConnection[tuple[object, ...]]
) -> None:
    embedder = HashEmbedder()
    flt = MetaFilter(namespace=Namespace.parse(USER))
    qvec = embedder.embed_query("alpha")
    async with PostgresEngine(pg_dsn, embedder=embedder) as engine:
        await _fill(engine, users=3, per_user=10)
        first = await semantic.semantic(conn, SPACE, qvec, flt, await max_rowid(conn), 3)
        await engine.forget(ForgetRequest(ids=tuple(await _ids_of(conn, [r for r, _ in first.ranked]))))
    snapshot = await max_rowid(conn)
    after = await semantic.semantic(conn, SPACE, qvec, flt, snapshot, 10)
    assert not {r for r, _ in first.ranked} & {r for r, _ in after.ranked}
    assert len(after.ranked) == 7
    nobody = MetaFilter(namespace=Namespace.parse("team:acme/user:nobody"))
    empty = await semantic.semantic(conn, SPACE, qvec, nobody, snapshot, 10)
    assert empty.ranked == [] and empty.plan is semantic.Plan.FILTER_FIRST


async def _ids_of(conn: psycopg.AsyncConnection[tuple[object, ...]], rowids: list[int]) -> list[str]:
    cur = await conn.execute("SELECT id FROM items WHERE rowid = ANY(%s::bigint[])", (rowids,))
    return [str(r[0]) for r in await cur.fetchall()]


def _numbered(statement: str) -> str:
    """%s placeholders as $1, $2, ...: the form EXPLAIN (GENERIC_PLAN) plans without values."""
    parts = statement.split("%s")
    return parts[0] + "".join(f"${k}{part}" for k, part in enumerate(parts[1:], start=1))


async def test_a_users_read_never_ranges_over_the_row_ids_of_every_tenant(
    pg_dsn: str, conn: psycopg.AsyncConnection[tuple[object, ...]]
) -> None:
    """The snapshot bound is a filter on the reach's rows, never a range of the row id index (which
    holds every tenant's rows): checked on the generic plans the driver's prepared statements run, with
    index scans made cheap and pages dear, so the planner would take that range if it could (it does
    when the bound is written as a plain `i.rowid <= $n`)."""
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        await _fill(engine, users=10, per_user=50)
    await conn.execute("ANALYZE")
    for setting in (
        "cpu_index_tuple_cost = 0",
        "cpu_operator_cost = 0",
        "random_page_cost = 1000",
        "seq_page_cost = 1000",
        "enable_seqscan = off",
    ):
        await conn.execute(f"SET {setting}")
    flt = MetaFilter(namespace=Namespace.parse(USER))
    lexical, _ = search.lexical_statement(["alpha", "bravo"], flt, 10**6, 0.5)
    plans = []
    for statement in (lexical, semantic.filter_first_statement(SPACE, [0.0] * 32, flt, 10**6, 10, 100)[0]):
        cur = await conn.execute(f"EXPLAIN (GENERIC_PLAN) {_numbered(statement)}")  # type: ignore[arg-type]
        plans.append("\n".join(str(r[0]) for r in await cur.fetchall()))
    for plan in plans:
        assert "items_ns" in plan and "items_pkey" not in plan and "items_tsv" not in plan, plan
