"""Semantic candidates: cosine similarity over pgvector, exact when cheap, HNSW when the store is large.

Plans:
- EXACT (FILTER_FIRST when the filter narrows anything): the filter reads at most `EXACT_MAX_ROWS`
  rows, and each is scored. One statement reads the filter's rows once, by their own indexes, counting
  them up to the cap + 1, and scores them when they are within it: a user's read costs that user's
  rows, however many rows the table holds.
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
from tinymemory.engines.postgres.search import SNAPSHOT_BOUND
from tinymemory.engines.postgres.where import Params, filter_sql, is_selective
from tinymemory.engines.versions import Floats
from tinymemory.retrieval.pipeline import Ranked, unit_cosine

EXACT_MAX_ROWS = 20_000
NO_CAP = 2**62  # a cap no table reaches (LIMIT cap + 1 still fits a bigint)
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


def filter_first_statement(
    space: Space, qvec: Floats, flt: MetaFilter, snapshot: int, n: int, cap: int
) -> tuple[str, Params]:
    """The statement `_filter_first` runs, and its parameters."""
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    params += [cap + 1, qvec, space.embedder, space.dim, cap, n]
    statement = (
        "WITH reach AS MATERIALIZED ("
        f" SELECT i.rowid FROM items i WHERE {SNAPSHOT_BOUND} AND {where} LIMIT %s),"
        " admitted AS (SELECT count(*) AS c FROM reach)"
        " SELECT a.c, s.rowid, s.d FROM admitted a LEFT JOIN LATERAL ("
        "  SELECT r.rowid, v.d FROM reach r CROSS JOIN LATERAL ("
        "   SELECT x.vec <=> %s AS d FROM vectors x"
        "   WHERE x.item_rowid = r.rowid AND x.embedder = %s AND x.dim = %s LIMIT 1) v"
        "  WHERE a.c <= %s ORDER BY v.d, r.rowid LIMIT %s) s ON true"
        " ORDER BY s.d, s.rowid"
    )
    return statement, params


async def _filter_first(
    conn: Conn, space: Space, qvec: Floats, flt: MetaFilter, snapshot: int, n: int, cap: int
) -> Ranked | None:
    """The exact top `n` of the rows the filter admits, scored one by one; None when it admits more than
    `cap` rows (they are counted only up to cap + 1, so the answer costs the same however large the
    table is).

    One statement: the filter's rows are read once by their own indexes (the namespace index for a
    user's reach) into `reach`, and each looks its vector up by key (LIMIT 1 keeps the subquery a
    lookup); a plan that does not hang on row estimates (a fresh table has none; a wrong join cost
    seconds). Past the cap the scoring is skipped (a one-time filter) and one row with the count comes
    back. Which rows are scored and their order depend only on the rows inside the filter."""
    statement, params = filter_first_statement(space, qvec, flt, snapshot, n, cap)
    cur = await conn.execute(statement, params)
    rows = await cur.fetchall()
    if not rows or int(rows[0][0]) > cap:
        return None
    return [(int(r[1]), unit_cosine(1.0 - float(r[2]))) for r in rows if r[1] is not None]


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
    # the plan depends only on how many rows the filter reads (never on rows outside the reach); past
    # what the index takes, every read is exact however many rows the filter reads
    exact = Plan.FILTER_FIRST if is_selective(flt) else Plan.EXACT
    cap = EXACT_MAX_ROWS if 1 <= space.dim <= HNSW_MAX_DIM else NO_CAP
    ranked = await _filter_first(conn, space, qvec, flt, snapshot, n, cap)
    if ranked is not None:
        return Outcome(ranked, exact)
    k = 2 * n + 32
    while k <= HNSW_MAX_K:
        found, returned = await _hnsw(conn, space, qvec, flt, snapshot, k)
        if len(found) >= n or returned < k:
            return Outcome(found[:n], Plan.HNSW)
        # widen by the observed pass rate (at least 4x) so a narrow filter needs few rounds
        k *= max(4, int(1.5 * n / max(len(found), 1)) + 1)
    return Outcome(await _filter_first(conn, space, qvec, flt, snapshot, n, NO_CAP) or [], Plan.EXACT)
