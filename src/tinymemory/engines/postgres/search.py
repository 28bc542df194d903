"""Lexical candidates for fetch, and the helpers the ranking pipeline asks for (light rows, newest time).

bm25 is computed by `tinymemory.retrieval.bm25` over the read's own reach: term frequencies come from
the `tsv` of the rows inside the filter (read back with `unnest`, weighted by field), statistics from
`lex_ns`/`lex_df` summed over the reach. The same numbers as the SQLite engine's scoped path, so both
engines score alike; fusion, reranking and time live in `tinymemory.retrieval.pipeline`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from tinymemory.api.filters import MetaFilter
from tinymemory.engines.postgres import lexstats
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.where import Params, filter_sql
from tinymemory.engines.rows import from_us
from tinymemory.retrieval.config import SCOPED_BUDGET_SHARE, field_weights
from tinymemory.retrieval.links import holders
from tinymemory.retrieval.pipeline import POSTINGS_BUDGET, Light, Ranked, ScopeStats, bm25_best, prune
from tinymemory.retrieval.text import Analyzer

# The snapshot bound of a read over the filter's rows, written so that no index serves it: the row id
# index would answer it with a range over every tenant's rows below the snapshot, which a cached generic
# plan (one that does not know the snapshot's value) combined with the namespace index for a user's
# read, estimating a third of the table (measured at 100,000 items: a bitmap of 33,000 row ids beside
# the user's 500). As a filter it is checked on the reach's rows alone.
SNAPSHOT_BOUND = "i.rowid + 0 <= %s"


async def scope_stats(conn: Conn, analyzer: Analyzer, query: str, flt: MetaFilter) -> ScopeStats:
    """The statistics a read ranks with: over its reach (every namespace when it reaches everything)."""
    return await lexstats.stats(conn, lexstats.scope_of(flt), analyzer.query_terms(query))


def kept_terms(terms: list[str], flt: MetaFilter, stats: ScopeStats, budget: int) -> list[str]:
    """The query terms scored: the most common are left out past the postings budget, counted in the
    reach; a read confined to part of the tree gets the same share of the budget as in SQLite."""
    if lexstats.scope_of(flt) is not None:
        budget = max(1, int(budget * SCOPED_BUDGET_SHARE))
    return prune(terms, stats.df, budget)


async def lexical(
    conn: Conn,
    analyzer: Analyzer,
    query: str,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    stats: ScopeStats,
    budget: int = POSTINGS_BUDGET,
    context_weight: float = 0.0,
) -> Ranked:
    """bm25 over the query's kept terms for the rows inside the filter at or below `snapshot`, best
    first (ties by rowid). A field of weight 0 adds nothing, and a row matched only there is left out."""
    return await lexical_of(
        conn, analyzer.query_terms(query), flt, snapshot, n, stats, budget, context_weight
    )


async def lexical_of(
    conn: Conn,
    terms: list[str],
    flt: MetaFilter,
    snapshot: int,
    n: int,
    stats: ScopeStats,
    budget: int = POSTINGS_BUDGET,
    context_weight: float = 0.0,
) -> Ranked:
    """`lexical` over terms already analysed."""
    if not terms or n <= 0:
        return []
    kept = kept_terms(terms, flt, stats, budget)
    statement, params = lexical_statement(kept, flt, snapshot, context_weight)
    cur = await conn.execute(statement, params)
    rows = [(int(r[0]), str(r[1]), float(r[2]), int(r[3])) for r in await cur.fetchall()]
    return bm25_best(rows, stats, n)


async def link_holders(
    conn: Conn,
    terms: Sequence[str],
    rare: Callable[[Sequence[str], ScopeStats], list[str]],
    n: int,
    flt: MetaFilter,
    snapshot: int,
) -> dict[str, list[int]]:
    """The `links` stage's read (`Ranking.link_terms`): the reach's statistics of the terms, then in
    one statement (the lexical ranker's, the context field off) the rows inside the filter whose own
    text holds each term `rare` keeps, `n` at most."""
    if not terms:
        return {}
    wanted = rare(terms, await lexstats.stats(conn, lexstats.scope_of(flt), list(terms)))
    if not wanted:
        return {}
    statement, params = lexical_statement(wanted, flt, snapshot, 0.0)
    cur = await conn.execute(statement, params)
    return holders([(str(r[1]), int(r[0])) for r in await cur.fetchall()], n)


def lexical_statement(
    kept: list[str], flt: MetaFilter, snapshot: int, context_weight: float
) -> tuple[str, Params]:
    """One row per (row, kept term) inside the filter: the field-weighted frequency, from the positions'
    weights. The snapshot bound is `SNAPSHOT_BOUND`: a filter, never an index condition."""
    weights = field_weights(context_weight)
    params: Params = [
        weights["title"],
        weights["body"],
        weights["context"],
        lexstats.tsquery_text(kept),
        kept,
        snapshot,
    ]
    where = filter_sql(flt, params)
    statement = (
        "SELECT i.rowid, u.lexeme, f.freq, i.lex_len FROM items i"
        " CROSS JOIN LATERAL unnest(i.tsv) AS u"
        " CROSS JOIN LATERAL (SELECT"
        "   sum(CASE w WHEN 'A' THEN %s WHEN 'B' THEN %s WHEN 'C' THEN %s ELSE 0 END) AS freq"
        "   FROM unnest(u.weights) AS w) AS f"
        f" WHERE i.tsv @@ %s::tsquery AND u.lexeme = ANY(%s::text[]) AND {SNAPSHOT_BOUND}"
        f" AND {where} AND f.freq > 0"
    )
    return statement, params


async def recent(conn: Conn, flt: MetaFilter, snapshot: int, n: int) -> Ranked:
    """The newest rows the filter reads, scored 0: what a lexical read returns for a query with no
    content words ("what do you know about me?"), rather than nothing."""
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    params.append(n)
    cur = await conn.execute(
        f"SELECT i.rowid FROM items i WHERE {SNAPSHOT_BOUND} AND {where}"
        " ORDER BY i.observed_at DESC, i.id DESC LIMIT %s",
        params,
    )
    return [(int(r[0]), 0.0) for r in await cur.fetchall()]


async def visible(conn: Conn, rowids: list[int], flt: MetaFilter, snapshot: int) -> set[int]:
    """Which of `rowids` the filter reads at or below `snapshot`."""
    if not rowids:
        return set()
    params: Params = [rowids, snapshot]
    where = filter_sql(flt, params)
    cur = await conn.execute(
        f"SELECT i.rowid FROM items i WHERE i.rowid = ANY(%s::bigint[]) AND i.rowid <= %s AND {where}", params
    )
    return {int(r[0]) for r in await cur.fetchall()}


# The active turns just before and after a row in its thread and namespace (index items_thread).
_BEFORE = (
    "(SELECT p.rowid FROM items p WHERE p.thread_id = i.thread_id AND p.ns = i.ns AND p.rowid < i.rowid"
    " AND p.valid_to IS NULL AND p.forgotten_at IS NULL ORDER BY p.rowid DESC LIMIT 1)"
)
_AFTER = (
    "(SELECT n.rowid FROM items n WHERE n.thread_id = i.thread_id AND n.ns = i.ns AND n.rowid > i.rowid"
    " AND n.rowid <= %s AND n.valid_to IS NULL AND n.forgotten_at IS NULL ORDER BY n.rowid LIMIT 1)"
)


async def light_rows(conn: Conn, rowids: list[int], detailed: bool, snapshot: int) -> dict[int, Light]:
    """The light columns of candidate rows (fusion priors, time spans); `detailed` adds what the
    rerankers read: the indexed text (title, text, summary), source, thread and the thread's
    neighbouring turns up to `snapshot`."""
    if not rowids:
        return {}
    if not detailed:
        cur = await conn.execute(
            "SELECT i.rowid, i.confidence, i.observed_at, i.event_from, i.event_to"
            " FROM items i WHERE i.rowid = ANY(%s::bigint[])",
            (rowids,),
        )
        return {int(r[0]): Light(r[1], int(r[2]), r[3], r[4]) for r in await cur.fetchall()}
    cur = await conn.execute(
        "SELECT i.rowid, i.confidence, i.observed_at, i.event_from, i.event_to,"
        " concat_ws(E'\\n', i.title, i.text, i.summary), coalesce(i.source_id, i.source_kind), i.ns,"
        f" i.thread_id, {_BEFORE}, {_AFTER}, nullif(i.extra, '{{}}') FROM items i"
        " WHERE i.rowid = ANY(%s::bigint[])",
        (snapshot, rowids),
    )
    return {int(r[0]): Light(r[1], int(r[2]), *r[3:]) for r in await cur.fetchall()}


async def max_rowid(conn: Conn) -> int:
    """The snapshot a fetch (and every later page of it) reads up to."""
    cur = await conn.execute("SELECT coalesce(max(rowid), 0) FROM items")
    row = await cur.fetchone()
    return 0 if row is None else int(row[0])


async def latest_observed(conn: Conn, flt: MetaFilter, snapshot: int) -> datetime | None:
    """The newest observed_at the filter reads: what "yesterday" in a question is relative to."""
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    cur = await conn.execute(
        f"SELECT i.observed_at FROM items i WHERE {SNAPSHOT_BOUND} AND {where}"
        " ORDER BY i.observed_at DESC LIMIT 1",
        params,
    )
    row = await cur.fetchone()
    return None if row is None else from_us(int(row[0]))
