"""Semantic candidates: cosine similarity over pgvector, exact when cheap, HNSW when the store is large.

Plans, in order:
- EXACT: few vectors of this embedder (at most `EXACT_MAX_ROWS`): score every row the filter reads.
- FILTER_FIRST: a selective filter that admits few rows (the SQLite engine's cap): score only those.
- HNSW: the per-embedder index (schema.ensure_vector_index) returns the nearest rows, which are then
  checked against the filter; the search widens until enough pass, and past what the index can return
  it falls back to the exact plan.
Scores are `1 - cosine distance` clipped to [0, 1]; ties break by rowid, as in SQLite. The exact plans
depend only on the rows inside the filter; the HNSW plan is approximate (which rows it finds depends on
the graph of every row of the embedder) and serves only stores past the exact plans' sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from psycopg import sql

from tinymemory.api.filters import MetaFilter
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.schema import HNSW_MAX_DIM, vector_expression
from tinymemory.engines.postgres.where import Params, filter_sql, is_selective
from tinymemory.engines.sqlite.search import filter_first_cap
from tinymemory.engines.sqlite.vectors import Floats
from tinymemory.retrieval.pipeline import Ranked, unit_cosine

EXACT_MAX_ROWS = 20_000
HNSW_MAX_K = 1_000  # hnsw.ef_search's ceiling: the index returns at most this many rows per scan


class Plan(StrEnum):
    EXACT = "exact"
    FILTER_FIRST = "filter_first"
    HNSW = "hnsw"


@dataclass(frozen=True, slots=True)
class Space:
    """Which embedder's vectors a read searches."""

    embedder: str
    dim: int


@dataclass(frozen=True, slots=True)
class Outcome:
    ranked: Ranked
    plan: Plan


async def _bounded_count(conn: Conn, query: str, params: Params, cap: int) -> int:
    """count(*) of a query's rows, stopping at cap + 1 (cheap however large the table)."""
    cur = await conn.execute(f"SELECT count(*) FROM ({query} LIMIT %s) s", [*params, cap + 1])
    row = await cur.fetchone()
    return 0 if row is None else int(row[0])


async def _exact(conn: Conn, space: Space, qvec: Floats, flt: MetaFilter, snapshot: int, n: int) -> Ranked:
    params: Params = [qvec, space.embedder, space.dim, snapshot]
    where = filter_sql(flt, params)
    params.append(n)
    cur = await conn.execute(
        "SELECT i.rowid, v.vec <=> %s AS d FROM items i JOIN vectors v ON v.item_rowid = i.rowid"
        f" WHERE v.embedder = %s AND v.dim = %s AND i.rowid <= %s AND {where}"
        " ORDER BY d, i.rowid LIMIT %s",
        params,
    )
    return [(int(r[0]), unit_cosine(1.0 - float(r[1]))) for r in await cur.fetchall()]


async def _hnsw(
    conn: Conn, space: Space, qvec: Floats, flt: MetaFilter, snapshot: int, k: int
) -> tuple[Ranked, int]:
    """The index's `k` nearest rows at or below the snapshot that pass the filter, and how many the index
    returned before the filter."""
    await conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(40, k)),))
    expr = vector_expression(space.dim)
    params: Params = [qvec, snapshot, qvec, k]
    where = filter_sql(flt, params)
    query = sql.SQL(
        "SELECT near.item_rowid, near.d, (i.rowid IS NOT NULL) FROM ("
        " SELECT v.item_rowid, {expr} <=> %s::vector({dim}) AS d FROM vectors v"
        " WHERE v.embedder = {embedder} AND v.dim = {dim} AND v.item_rowid <= %s"
        " ORDER BY {expr} <=> %s::vector({dim}) LIMIT %s) near"
        " LEFT JOIN items i ON i.rowid = near.item_rowid AND {where}"
        " ORDER BY near.d, near.item_rowid"
    ).format(
        expr=expr,
        dim=sql.Literal(space.dim),
        embedder=sql.Literal(space.embedder),
        where=sql.SQL(where),  # built by where.py from fixed text; values travel as parameters
    )
    cur = await conn.execute(query, params)
    rows = await cur.fetchall()
    return [(int(r[0]), unit_cosine(1.0 - float(r[1]))) for r in rows if r[2]], len(rows)


async def semantic(conn: Conn, space: Space, qvec: Floats, flt: MetaFilter, snapshot: int, n: int) -> Outcome:
    if n <= 0:
        return Outcome([], Plan.EXACT)
    qvec = np.asarray(qvec, dtype=np.float32).reshape(-1)
    everything = "SELECT 1 FROM vectors WHERE embedder = %s AND dim = %s"
    rows = await _bounded_count(conn, everything, [space.embedder, space.dim], EXACT_MAX_ROWS)
    if rows == 0:
        return Outcome([], Plan.EXACT)
    if rows <= EXACT_MAX_ROWS or not 1 <= space.dim <= HNSW_MAX_DIM:
        return Outcome(await _exact(conn, space, qvec, flt, snapshot, n), Plan.EXACT)
    if is_selective(flt):
        cap = filter_first_cap(await _estimated_rows(conn, rows))
        params: Params = [snapshot]
        where = filter_sql(flt, params)
        admitted = await _bounded_count(
            conn, f"SELECT 1 FROM items i WHERE i.rowid <= %s AND {where}", params, cap
        )
        if admitted <= cap:
            return Outcome(await _exact(conn, space, qvec, flt, snapshot, n), Plan.FILTER_FIRST)
    k = 2 * n + 32
    while k <= HNSW_MAX_K:
        ranked, returned = await _hnsw(conn, space, qvec, flt, snapshot, k)
        if len(ranked) >= n or returned < k:
            return Outcome(ranked[:n], Plan.HNSW)
        # widen by the observed pass rate (at least 4x) so a narrow filter needs few rounds
        k *= max(4, int(1.5 * n / max(len(ranked), 1)) + 1)
    return Outcome(await _exact(conn, space, qvec, flt, snapshot, n), Plan.EXACT)


async def _estimated_rows(conn: Conn, at_least: int) -> int:
    """The vectors table's size as the planner estimates it (no scan), at least `at_least`."""
    cur = await conn.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = 'vectors'::regclass")
    row = await cur.fetchone()
    return max(at_least, 0 if row is None else int(row[0]))
