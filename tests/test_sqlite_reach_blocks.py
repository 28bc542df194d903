"""A reach made of namespaces is scored from each namespace's block of unit rows (vectors.py,
NamespaceBlocks): the same rows, scores, rankings and cursors as the filter-first plan, extended by the
rows stored since, never touched by another tenant's writes, and emptied by a purge."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from test_sqlite_support import HashEmbedder, note, ns
from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, MetaFilter, PurgeRequest
from tinymemory.api.items import ItemKind
from tinymemory.api.namespace import Reach
from tinymemory.engines.sqlite import SqliteEngine, search, vectors
from tinymemory.engines.sqlite import engine as sqlite_engine
from tinymemory.engines.sqlite.vectors import VectorMatrix

WORDS = ["basil", "tomato", "harbour", "lantern", "river", "stone", "market", "bell"]
QUERIES = ["basil tomato", "old harbour bell", "river stone market", "lantern"]
KINDS = (ItemKind.LEARNING, ItemKind.SUMMARY, ItemKind.DOCUMENT)
RECALLED = (ItemKind.LEARNING, ItemKind.SUMMARY)
SHARED = ("workspace:w", "workspace:w/agent:a0")


def text(i: int) -> str:
    return f"note {WORDS[i % 8]} {WORDS[(i * 3) % 8]} {WORDS[(i * 5) % 8]} {i}"


def place(i: int) -> str:
    """Half the rows in the shared tiers, the rest in three users' own tiers, and some elsewhere."""
    roll = i % 10
    if roll < 3:
        return SHARED[roll % 2]
    if roll == 9:
        return "workspace:other/user:x"
    return f"workspace:w/user:u{i % 3}"


def reach_of(user: str) -> Reach:
    return Reach.union(*(Reach.exact(ns(n)) for n in (*SHARED, f"workspace:w/user:{user}")))


async def fill(path: Path, start: int, count: int, where: str | None = None) -> list[str]:
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        items = [
            note(text(i), at=where or place(i), kind=KINDS[i % 3], supersede=False)
            for i in range(start, start + count)
        ]
        return [s.id for s in await engine.store_many(items)]


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(tmp_path / "m.db")
    yield c
    c.close()


def loaded(conn: sqlite3.Connection) -> VectorMatrix:
    embedder = HashEmbedder()
    matrix = VectorMatrix(embedder.name, embedder.dim)
    matrix.refresh(conn)
    return matrix


def both_plans(
    conn: sqlite3.Connection, matrix: VectorMatrix, flt: MetaFilter, n: int, snapshot: int | None = None
) -> tuple[search.Ranked, search.Ranked]:
    """(from the blocks, from the filter-first plan) for every query, in one transaction."""
    embedder = HashEmbedder()
    blocks: search.Ranked = []
    first: search.Ranked = []
    conn.execute("BEGIN")
    try:
        top = snapshot if snapshot is not None else search.max_rowid(conn)
        for q in QUERIES:
            qvec = embedder.embed_query(q)
            got = search.semantic(conn, matrix, qvec, flt, top, n)
            assert got.plan is search.Plan.REACH_BLOCKS
            old = search._filter_first(conn, matrix, qvec, flt, top, n)
            assert old is not None and old.plan is search.Plan.FILTER_FIRST
            blocks += got.ranked
            first += old.ranked
    finally:
        conn.execute("COMMIT")
    return blocks, first


async def test_the_blocks_rank_as_the_filter_first_plan(tmp_path: Path, conn: sqlite3.Connection) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, 0, 400)
    matrix = loaded(conn)
    for user in ("u0", "u1"):
        for flt in (
            MetaFilter(reach=reach_of(user)),
            MetaFilter(reach=reach_of(user), kinds=RECALLED),
            MetaFilter(reach=reach_of(user), kinds=(ItemKind.SUMMARY,)),
        ):
            for n in (1, 10, 500):
                blocks, first = both_plans(conn, matrix, flt, n)
                assert blocks == first and blocks
    # forgotten rows leave both; rows stored since extend the blocks; an older snapshot cuts them
    snapshot = search.max_rowid(conn)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.forget(ForgetRequest(ids=tuple(ids[:200:3])))
    await fill(path, 400, 60)
    matrix.refresh(conn)
    flt = MetaFilter(reach=reach_of("u0"), kinds=RECALLED)
    blocks, first = both_plans(conn, matrix, flt, 10)
    assert blocks == first
    assert both_plans(conn, matrix, flt, 10, snapshot) == both_plans(conn, loaded(conn), flt, 10, snapshot)
    assert set(matrix.blocks.namespaces()) == {*SHARED, "workspace:w/user:u0", "workspace:w/user:u1"}


@pytest.mark.parametrize("in_memory", [True, False])
async def test_pages_and_cursors_are_the_filter_first_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    if not in_memory:  # the matrix stays out of memory: blocks and filter-first read the table
        monkeypatch.setattr(sqlite_engine, "MATRIX_FILE_ROWS", 0)
    path = tmp_path / "m.db"
    await fill(path, 0, 300)
    flt = MetaFilter(reach=reach_of("u2"), kinds=RECALLED)

    async def pages(engine: SqliteEngine) -> list[list[tuple[str, float]]]:
        out = []
        for q in QUERIES:
            for mode in (FetchMode.SEMANTIC, FetchMode.HYBRID):
                res = await engine.fetch(FetchRequest(q, mode=mode, filter=flt, limit=7))
                got = [[(h.item.id, h.score) for h in res.hits]]
                while res.next_cursor is not None:
                    res = await engine.fetch(
                        FetchRequest(q, mode=mode, filter=flt, limit=7, cursor=res.next_cursor)
                    )
                    got.append([(h.item.id, h.score) for h in res.hits])
                out += got
        return out

    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        through_blocks = await pages(engine)
        assert engine.last_semantic_plan is search.Plan.REACH_BLOCKS
        matrix = engine.storage._matrix
        assert matrix is not None and matrix.loaded is in_memory and len(matrix.blocks) > 0
    monkeypatch.setattr(search, "BLOCK_FIELDS", frozenset())  # no filter qualifies: filter-first
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        assert await pages(engine) == through_blocks
        assert engine.last_semantic_plan is search.Plan.FILTER_FIRST


async def test_another_tenants_writes_move_nothing_in_a_users_scores(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, 300)
    flt = MetaFilter(reach=reach_of("u0"), kinds=RECALLED)

    async def scores(engine: SqliteEngine) -> list[list[tuple[str, float]]]:
        out = []
        for q in QUERIES:
            res = await engine.fetch(FetchRequest(q, mode=FetchMode.SEMANTIC, filter=flt, limit=50))
            out.append([(h.item.id, h.score) for h in res.hits])
        return out

    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        before = await scores(engine)
        # another workspace and another user of this one write, forget and purge meanwhile
        others = await fill(path, 300, 200, "workspace:other/user:x")
        others += await fill(path, 500, 100, "workspace:w/user:u1")
        await engine.forget(ForgetRequest(ids=tuple(others[::2])))
        assert (await engine.purge(PurgeRequest(reach=Reach.exact(ns("workspace:other/user:x"))))).purged
        assert await scores(engine) == before
        matrix = engine.storage._matrix
        assert matrix is not None
        assert set(matrix.blocks.namespaces()) == {*SHARED, "workspace:w/user:u0"}


async def test_a_purge_leaves_no_purged_vector_in_any_block(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, 0, 200, "workspace:w/user:u0")
    flt = MetaFilter(reach=reach_of("u0"))
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.fetch(FetchRequest("basil", mode=FetchMode.SEMANTIC, filter=flt))
        matrix = engine.storage._matrix
        assert matrix is not None and len(matrix.blocks) == 200
        await engine.forget(ForgetRequest(ids=tuple(ids[:50])))
        assert (await engine.purge(PurgeRequest())).purged == 50
        assert len(matrix.blocks) == 0
        await engine.fetch(FetchRequest("basil", mode=FetchMode.SEMANTIC, filter=flt))
        c = sqlite3.connect(path)
        try:
            kept = {int(r[0]) for r in c.execute("SELECT item_rowid FROM vectors")}
            block = matrix.blocks.block(c, "workspace:w/user:u0", matrix._view(), 10**9)
        finally:
            c.close()
        assert len(matrix.blocks) == 150 and set(block.rowids[: block.n].tolist()) == kept


async def test_the_blocks_keep_to_their_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SPARSE_ROWS", 0)  # the budget is then the matrix's own rows
    path = tmp_path / "m.db"
    await fill(path, 0, 300)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        for user in ("u0", "u1", "u2", "u0"):
            flt = MetaFilter(reach=reach_of(user))
            await engine.fetch(FetchRequest("basil", mode=FetchMode.SEMANTIC, filter=flt))
            matrix = engine.storage._matrix
            assert matrix is not None and len(matrix.blocks) <= matrix.size
        assert "workspace:w/user:u0" in matrix.blocks.namespaces()
        assert np.all(np.diff(matrix.rowids) > 0)


async def test_the_newest_observed_row_of_a_reach_is_the_one_query_over_the_reach(
    tmp_path: Path, conn: sqlite3.Connection
) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, 0, 300)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.forget(ForgetRequest(ids=tuple(ids[-40:])))  # the newest rows of every tier

    def one_query(flt: MetaFilter, snapshot: int) -> int | None:
        params: list[object] = [snapshot]
        where = search.filter_sql(flt, params)
        row = conn.execute(search.LATEST_OBSERVED_SQL.format(where=where), params).fetchone()
        return None if row is None else int(row[0])

    top = search.max_rowid(conn)
    nobody = Reach.exact(ns("workspace:w/user:nobody"))
    for flt in (
        MetaFilter(reach=reach_of("u0")),
        MetaFilter(reach=reach_of("u1"), kinds=(ItemKind.SUMMARY,)),
        MetaFilter(reach=Reach.union(reach_of("u2"), Reach.exact(ns("workspace:other/user:x")))),
        MetaFilter(reach=nobody),
    ):
        for snapshot in (top, top // 2, 1):
            got = search.latest_observed(conn, flt, snapshot)
            want = one_query(flt, snapshot)
            assert (None if got is None else int(got.timestamp() * 1_000_000)) == want
    assert search.latest_observed(conn, MetaFilter(reach=nobody), top) is None


async def test_a_purge_elsewhere_empties_blocks_read_from_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "MATRIX_FILE_ROWS", 0)
    path = tmp_path / "m.db"
    ids = await fill(path, 0, 120, "workspace:w/user:u0")
    flt = MetaFilter(reach=reach_of("u0"))
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.fetch(FetchRequest("basil", mode=FetchMode.SEMANTIC, filter=flt))
        matrix = engine.storage._matrix
        assert matrix is not None and not matrix.loaded and len(matrix.blocks) == 120
        async with SqliteEngine(path, embedder=HashEmbedder()) as other:  # as another process would
            await other.forget(ForgetRequest(ids=tuple(ids[:30])))
            assert (await other.purge(PurgeRequest())).purged == 30
        hits = (
            await engine.fetch(FetchRequest("basil", mode=FetchMode.SEMANTIC, filter=flt, limit=200))
        ).hits
        assert len(hits) == 90 and not {h.item.id for h in hits} & set(ids[:30])
        assert len(matrix.blocks) == 90 and not matrix.loaded  # emptied, then read again without them
