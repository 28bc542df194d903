"""Semantic candidates: cosine similarity over pgvector, exact when cheap, HNSW when the store is large.

Plans:
- EXACT (FILTER_FIRST when the filter narrows anything): the filter reads at most `EXACT_MAX_ROWS`
  rows, and each is scored.
- HNSW: past that, the per-embedder index (schema.ensure_vector_index) returns the nearest rows, which
  are then checked against the filter; the search widens until enough pass, and past what the index can
  return it falls back to the exact plan.
The choice depends only on the rows the filter reads. Scores are `1 - cosine distance` clipped to
[0, 1]; ties break by rowid, as in SQLite. The exact plans depend only on the rows inside the filter;
the HNSW plan is approximate (which rows it finds depends on the graph of every row of the embedder) and
serves only reads over more rows than the exact plans take.
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
from tinymemory.engines.versions import Floats
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
    # the filter's rows drive and each looks its vector up by key (LIMIT 1 keeps the subquery a lookup):
    # a plan that does not hang on row estimates (a fresh table has none; a wrong join cost seconds)
    cur = await conn.execute(
        "SELECT i.rowid, v.d FROM items i CROSS JOIN LATERAL ("
        " SELECT x.vec <=> %s AS d FROM vectors x"
        " WHERE x.item_rowid = i.rowid AND x.embedder = %s AND x.dim = %s LIMIT 1) v"
        f" WHERE i.rowid <= %s AND {where}"
        " ORDER BY v.d, i.rowid LIMIT %s",
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
    # the plan depends only on how many rows the filter reads (never on rows outside the reach)
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    admitted = await _bounded_count(
        conn, f"SELECT 1 FROM items i WHERE i.rowid <= %s AND {where}", params, EXACT_MAX_ROWS
    )
    if admitted <= EXACT_MAX_ROWS or not 1 <= space.dim <= HNSW_MAX_DIM:
        plan = Plan.FILTER_FIRST if is_selective(flt) else Plan.EXACT
        return Outcome(await _exact(conn, space, qvec, flt, snapshot, n), plan)
    k = 2 * n + 32
    while k <= HNSW_MAX_K:
        ranked, returned = await _hnsw(conn, space, qvec, flt, snapshot, k)
        if len(ranked) >= n or returned < k:
            return Outcome(ranked[:n], Plan.HNSW)
        # widen by the observed pass rate (at least 4x) so a narrow filter needs few rounds
        k *= max(4, int(1.5 * n / max(len(ranked), 1)) + 1)
    return Outcome(await _exact(conn, space, qvec, flt, snapshot, n), Plan.EXACT)
