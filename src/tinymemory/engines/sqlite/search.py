"""Candidates for fetch: lexical (bm25 over the postings: the whole store's, or the reach's own) and
semantic (the vector matrix).

Each ranker returns (rowid, score) best first, scores in [0, 1], restricted to the filter and to rows
at or below the cursor's snapshot rowid, with the reach's statistics and the light columns that
`tinymemory.retrieval.pipeline` ranks them with. Fusion, reranking and time live there, not here.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from tinymemory.api.filters import MetaFilter
from tinymemory.engines.rows import from_us
from tinymemory.engines.sqlite import ann_reads, lexstats
from tinymemory.engines.sqlite.vectors import EarlyScores, Floats, VectorMatrix, top_by_rowid, top_order
from tinymemory.engines.sqlite.where import Params, filter_sql, is_selective, reach_sql
from tinymemory.retrieval import bm25
from tinymemory.retrieval.config import SCOPED_BUDGET_SHARE, field_weights
from tinymemory.retrieval.links import holders
from tinymemory.retrieval.pipeline import (
    POSTINGS_BUDGET,
    Light,
    Ranked,
    ScopeStats,
    bm25_best,
    prune,
    unit_cosine,
    unit_score,
)
from tinymemory.retrieval.text import Analyzer

if TYPE_CHECKING:  # ann.py loads on first use (ann_reads.py)
    from tinymemory.engines.sqlite import ann


class Plan(StrEnum):
    """How a semantic search met its filter."""

    SCAN = "scan"  # score every row, then keep the best that pass the filter in SQL
    FILTER_FIRST = "filter_first"  # read the (few) rows the filter allows, score only those
    HNSW = "hnsw"  # the graph's nearest rows and the rows stored since it was built (ann_reads.py)
    REACH_BLOCKS = "reach_blocks"  # every row of the reach's namespaces, from their blocks (vectors.py)


# Rows the filter-first plan reads straight from SQL when the matrix is not in memory. A row costs 3 us
# when the reach's rows sit together and up to 9 us when they are scattered through a large file (one
# agent, 1,700 rows: 5.5 ms; one team, 5,000 rows: 44 ms p50 at 100k items), so past 2,000 rows the
# matrix is loaded once and serves the read instead.
SQL_FIRST_MAX = 2_000


# The filter fields a read may set and still be scored from its namespaces' blocks: those that pass most
# of a reach's rows (a recall's kinds leave out documents only), so the best rows of the blocks are
# mostly the read's own and one round of the state check finds them.
BLOCK_FIELDS = frozenset({"reach", "kinds", "as_of"})
# Rows past the wanted number a read from the blocks checks in its first round.
BLOCK_MARGIN = 8


def exact_nodes(flt: MetaFilter) -> list[str] | None:
    """The namespaces of a reach made of exact nodes (a user's read reach is); None for no reach or one
    with a subtree."""
    reach = flt.reach
    if reach is None or reach.subtree_roots():
        return None
    return sorted(str(ns) for ns in reach.exact_nodes())


def reach_nodes(flt: MetaFilter) -> list[str] | None:
    """`exact_nodes` when the rest of the filter is in BLOCK_FIELDS; None otherwise (a subtree, or a
    narrower filter: the filter-first plan)."""
    return exact_nodes(flt) if BLOCK_FIELDS.issuperset(flt.set_fields()) else None


def filter_first_cap(matrix_rows: int) -> int:
    """Largest candidate set worth scoring row by row; beyond it one full scan is cheaper."""
    return max(500, matrix_rows // 10)


def prune_terms(conn: sqlite3.Connection, terms: list[str], budget: int = POSTINGS_BUDGET) -> list[str]:
    """`prune` by the whole file's counts (every namespace's, summed from `lex_terms`)."""
    return prune(terms, lexstats.stats(conn, None, terms).df, budget)


def scope_stats(conn: sqlite3.Connection, analyzer: Analyzer, query: str, flt: MetaFilter) -> ScopeStats:
    """The statistics a read ranks with: over its reach, or the whole file when it reaches everything."""
    return lexstats.stats(conn, lexstats.scope_of(flt), analyzer.query_terms(query))


def lexical(
    conn: sqlite3.Connection,
    analyzer: Analyzer,
    query: str,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    budget: int = POSTINGS_BUDGET,
    context_weight: float = 0.0,
    stats: ScopeStats | None = None,
) -> Ranked:
    """bm25 over the query's terms (common ones pruned), ranked with the statistics of the read's own
    reach. A read confined to part of the tree is scored by `lexical_scoped`; one that reaches every
    namespace by `lexical_whole`, with the whole file's (those FTS5's `bm25()` would use).
    `context_weight` is the neighbouring-turns field's weight; at 0 a row found only through that field
    is left out."""
    return lexical_of(conn, analyzer.query_terms(query), flt, snapshot, n, budget, context_weight, stats)


def lexical_of(
    conn: sqlite3.Connection,
    terms: list[str],
    flt: MetaFilter,
    snapshot: int,
    n: int,
    budget: int = POSTINGS_BUDGET,
    context_weight: float = 0.0,
    stats: ScopeStats | None = None,
) -> Ranked:
    """`lexical` over terms already analysed."""
    if not terms or n <= 0:
        return []
    scope = lexstats.scope_of(flt)
    if scope is not None:
        scoped = stats if stats is not None else lexstats.stats(conn, scope, terms)
        share = max(1, int(budget * SCOPED_BUDGET_SHARE))
        return lexical_scoped(conn, terms, flt, snapshot, n, scoped, share, context_weight)
    whole = stats if stats is not None else lexstats.stats(conn, None, terms)
    return lexical_whole(conn, prune(terms, whole.df, budget), flt, snapshot, n, whole, context_weight)


def link_holders(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    rare: Callable[[Sequence[str], ScopeStats], list[str]],
    n: int,
    flt: MetaFilter,
    snapshot: int,
) -> dict[str, list[int]]:
    """The `links` stage's read (`Ranking.link_terms`): the reach's statistics of the terms, then in
    one statement, for every term `rare` keeps, the rows inside the filter whose own text holds it (the
    rows the lexical ranker finds with the context field off: a title or body count), `n` at most.
    Only the reach's own postings are read (its namespaces', as `lexical_scoped`)."""
    if not terms:
        return {}
    wanted = rare(terms, lexstats.stats(conn, lexstats.scope_of(flt), list(terms)))
    if not wanted:
        return {}
    return holders([(term, doc) for doc, term, _, _ in _postings_in(conn, wanted, flt, snapshot, 0.0)], n)


def lexical_whole(
    conn: sqlite3.Connection,
    terms: list[str],
    flt: MetaFilter,
    snapshot: int,
    n: int,
    stats: ScopeStats,
    context_weight: float = 0.0,
) -> Ranked:
    """bm25 of the whole store for `terms` (already pruned), scored from the postings with the whole
    file's statistics: FTS5's `bm25()` ranking and floats (the same counts, lengths and totals, the
    same operations in its order: retrieval.bm25), without its per-row function calls. With a
    selective filter the filter joins the postings; otherwise the best rows are checked against it
    afterwards, widening until enough pass."""
    if not terms or n <= 0:
        return []
    weights = field_weights(context_weight)
    fields = [weights["title"], weights["body"], weights["context"]]
    selective = is_selective(flt)
    params: Params = [*terms, snapshot]
    join, where = "", ""
    if selective:
        join, where = " CROSS JOIN items i ON i.rowid = p.doc", f" AND {filter_sql(flt, params)}"
    cur = conn.cursor()
    cur.row_factory = None
    # one row per term, each column its postings' values joined by commas (in the same order), parsed
    # by numpy: a few thousand postings cost a fraction of as many Python tuples
    rows = cur.execute(
        "SELECT p.term, group_concat(p.doc), group_concat(p.title), group_concat(p.body),"
        f" group_concat(p.context), group_concat(p.len) FROM lex_postings p{join}"
        f" WHERE p.term IN ({','.join('?' * len(terms))}) AND p.doc <= ?{where} GROUP BY p.term",
        params,
    ).fetchall()
    held = {str(r[0]): [_ints(c) for c in r[1:]] for r in rows if r[1] is not None}
    rowids, scores = _whole_scores(
        [held[t] for t in terms if t in held], [t for t in terms if t in held], stats, fields
    )
    order = np.lexsort((rowids, -scores))
    order = order[scores[order] > 0]  # a row matched only in a field of weight 0
    if selective:
        return [(int(rowids[i]), unit_score(float(scores[i]))) for i in order[:n]]
    return _best_passing(conn, rowids[order], scores[order], unit_score, flt, snapshot, n)


def _best_passing(
    conn: sqlite3.Connection,
    rowids: npt.NDArray[np.int64],
    scores: npt.NDArray[np.floating],
    unit: Callable[[float], float],
    flt: MetaFilter,
    snapshot: int,
    n: int,
) -> Ranked:
    """The first `n` of `rowids` (best first) that the filter reads, with their `unit` scores. The
    rows of a whole-store read are mostly readable (only superseded ones are not), so a few more than
    `n` are checked first, then four times as many each round (a check is a look-up per row)."""
    ranked: Ranked = []
    at, k = 0, n + BLOCK_MARGIN
    while len(ranked) < n and at < len(rowids):
        picked = [int(r) for r in rowids[at : at + k]]
        ok = _visible(conn, picked, flt, snapshot)
        got = scores[at : at + k].tolist()
        ranked += [(r, unit(float(v))) for r, v in zip(picked, got, strict=True) if r in ok]
        at, k = at + k, 4 * k
    return ranked[:n]


def _ints(joined: str | int) -> npt.NDArray[np.int64]:
    """The integers `group_concat` joined by commas (one alone comes back as an integer)."""
    if isinstance(joined, int):
        return np.array([joined], dtype=np.int64)
    return np.fromstring(joined, dtype=np.int64, sep=",")  # parsed in C (the text form is not deprecated)


def _whole_scores(
    held: list[list[npt.NDArray[np.int64]]],
    terms: list[str],
    stats: ScopeStats,
    fields: list[float],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """bm25.scores of each term's postings (rows, title, body, context counts, row lengths), a row's
    terms summed in the query's order."""
    if not held:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    doc, title, body, context, length = (np.concatenate(c) for c in zip(*held, strict=True))
    idf = np.repeat([bm25.term_idf(stats.docs, stats.df.get(t, 0)) for t in terms], [len(h[0]) for h in held])
    by = np.argsort(doc, kind="stable")  # by row, each row's terms in the query's order
    freq = bm25.weighted_frequency([title[by], body[by], context[by]], fields)
    avgdl = bm25.average_length(stats.docs, stats.tokens)
    return bm25.scores(doc[by], freq, length[by].astype(np.float64), idf[by], avgdl)


def lexical_scoped(
    conn: sqlite3.Connection,
    terms: list[str],
    flt: MetaFilter,
    snapshot: int,
    n: int,
    stats: ScopeStats,
    budget: int = POSTINGS_BUDGET,
    context_weight: float = 0.0,
) -> Ranked:
    """bm25 for a read confined to a reach: the postings of its own namespaces (`lex_postings`, kept by
    `lexstats`) for the kept terms, joined to the few rows they name for the rest of the filter, with
    statistics from the reach and the formula from retrieval.bm25. Another tenant's rows are never read."""
    if not terms or n <= 0:
        return []
    kept = prune(terms, stats.df, budget)
    return bm25_best(_postings_in(conn, kept, flt, snapshot, context_weight), stats, n, kept)


def _postings_in(
    conn: sqlite3.Connection, terms: list[str], flt: MetaFilter, snapshot: int, context_weight: float
) -> list[tuple[int, str, float, int]]:
    """One row per (row, term) inside the filter at or below `snapshot`: the row, the term, its
    field-weighted frequency (what FTS5's phrase frequency sums) and the row's length, from the postings
    of the reach's own namespaces (every namespace's for a read of the whole store) joined to the few
    rows they name; a row matched only in a field of weight 0 is left out."""
    weights = field_weights(context_weight)
    params: Params = [weights["title"], weights["body"], weights["context"]]
    spaces = reach_sql(lexstats.scope_of(flt), params, column="ns")
    params.extend(terms)
    params.append(snapshot)
    where = filter_sql(flt, params)
    marks = ",".join("?" * len(terms))
    in_reach = "" if spaces is None else f"p.space IN (SELECT id FROM lex_ns WHERE {spaces}) AND "
    # plain tuples (a few hundred rows a read; sqlite3.Row costs more to make and to unpack)
    cur = conn.cursor()
    cur.row_factory = None
    rows: list[tuple[int, str, float, int]] = cur.execute(
        "SELECT p.doc, p.term, p.title * ? + p.body * ? + p.context * ? AS f, p.len"
        " FROM lex_postings p CROSS JOIN items i ON i.rowid = p.doc"
        f" WHERE {in_reach}p.term IN ({marks}) AND p.doc <= ? AND {where} AND f > 0",
        params,
    ).fetchall()
    return rows


def recent(conn: sqlite3.Connection, flt: MetaFilter, snapshot: int, n: int) -> Ranked:
    """The newest rows the filter reads, scored 0: what a lexical read returns for a query with no
    content words ("what do you know about me?"), rather than nothing."""
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    params.append(n)
    rows = conn.execute(
        f"SELECT i.rowid FROM items i WHERE +i.rowid <= ? AND {where}"
        " ORDER BY i.observed_at DESC, i.id DESC LIMIT ?",
        params,
    )
    return [(int(r[0]), 0.0) for r in rows]


# Candidates checked with one bound parameter each; more go through one JSON array (a parameter list
# that long nears SQLite's limit). At 52 rows of a 100,000-row file: 0.044 ms against 0.115 ms.
VISIBLE_LIST_MAX = 500


def _visible(conn: sqlite3.Connection, rowids: list[int], flt: MetaFilter, snapshot: int) -> set[int]:
    """Which of `rowids` the filter reads at or below `snapshot`."""
    if not rowids:
        return set()
    if len(rowids) <= VISIBLE_LIST_MAX:
        params: Params = [*rowids, snapshot]
        where = filter_sql(flt, params)
        marks = ",".join("?" * len(rowids))
        # NOT INDEXED: each candidate is one look-up by rowid; given the choice, SQLite searched the
        # namespace index once per (namespace, kind, rowid) of the list instead (a user's reach: 16
        # searches a candidate; 58 candidates at 50,000 items, 0.21 ms against 0.14)
        sql = (
            f"SELECT i.rowid FROM items i NOT INDEXED WHERE i.rowid IN ({marks}) AND i.rowid <= ? AND {where}"
        )
    else:
        params = [json.dumps(rowids), snapshot]
        where = filter_sql(flt, params)
        sql = (
            "SELECT i.rowid FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value WHERE i.rowid <= ?"
            f" AND {where}"
        )
    cur = conn.cursor()
    cur.row_factory = None
    return {int(r[0]) for r in cur.execute(sql, params)}


@dataclass
class SemanticOutcome:
    ranked: Ranked
    plan: Plan


def semantic(
    conn: sqlite3.Connection,
    matrix: VectorMatrix,
    qvec: Floats,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    early: EarlyScores | ann.FirstRound | None = None,
    graphs: ann_reads.GraphHolder | None = None,
    expansion: int | None = None,
) -> SemanticOutcome:
    """The semantic candidates of a read. `early` is work done ahead on the helper thread, beside the
    lexical side: the matrix scanned so far (`VectorMatrix.early_scores`), or the graph's first round
    (`GraphHolder.first_round`); each is used only by the plan it belongs to, and gives the same rows.
    `expansion` is the graph's, should the read walk it (`ann_reads.expansion_for`)."""
    if n <= 0:
        return SemanticOutcome([], Plan.SCAN)
    nodes = reach_nodes(flt)
    if nodes is not None:
        if matrix.loaded:
            matrix.refresh(conn)
        return _in_blocks(conn, matrix, qvec, flt, snapshot, n, nodes)
    if is_selective(flt):
        found = _filter_first(conn, matrix, qvec, flt, snapshot, n)
        if found is not None:
            return found
    rows = matrix.size if matrix.loaded else snapshot
    # the graph serves reads of the whole store only: which rows it finds depends on every row in it,
    # and a filtered read would have to ask it for many rows to find a few that pass (measured at 100k:
    # a team's reach took 42 ms p50 through the graph, against 12 ms from the matrix)
    wants_graph = graphs is not None and not is_selective(flt) and graphs.serves(rows)
    if graphs is not None and wants_graph:
        first = None if early is None or isinstance(early, EarlyScores) else early
        found = _approximate(conn, graphs, qvec, flt, snapshot, n, first, expansion)
        if found is not None:
            return found
    matrix.refresh(conn)
    scanned = (
        SemanticOutcome([], Plan.SCAN)
        if matrix.size == 0
        else _scan(conn, matrix, qvec, flt, snapshot, n, early if isinstance(early, EarlyScores) else None)
    )
    if graphs is not None and wants_graph and not graphs.loaded:
        # started once this read is scored, not before: a build's first chunk (reading and decoding
        # thousands of rows) would otherwise compete with the scan for the interpreter
        graphs.extend()
    return scanned


def prepare(
    conn: sqlite3.Connection,
    matrix: VectorMatrix,
    flt: MetaFilter,
    snapshot: int,
    graphs: ann_reads.GraphHolder | None = None,
) -> None:
    """Load what the first whole-store semantic read of a process will score with, before its query
    vector is ready: the saved graph (mapped and checksummed) when one serves the file, else the matrix
    (its saved copy mapped, the rows past it read). The query's embedder loads on the helper thread
    meanwhile (tens of milliseconds on a first read), so the two loads overlap instead of adding up.
    The same loads `semantic` would make, in the same order; nothing once either is in memory."""
    if is_selective(flt) or matrix.loaded or (graphs is not None and graphs.loaded):
        return
    if graphs is not None and graphs.serves(snapshot) and graphs.graph(conn, build=False) is not None:
        graphs.copy(conn)
        return
    matrix.refresh(conn)


def _filter_first(
    conn: sqlite3.Connection, matrix: VectorMatrix, qvec: Floats, flt: MetaFilter, snapshot: int, n: int
) -> SemanticOutcome | None:
    """Score only the rows the filter admits, when they are few; None when they are too many.

    A matrix already in memory serves their vectors; otherwise they are read from SQL, so a read
    confined to a small reach never pays for loading the whole store (measured at 100,000 items: a
    first scoped read 0.57 s with the load, see docs/benchmarks.md, coldstart)."""
    if matrix.loaded:
        matrix.refresh(conn)
    cap = filter_first_cap(matrix.size) if matrix.loaded else min(filter_first_cap(snapshot), SQL_FIRST_MAX)
    params: Params = [snapshot]
    where = filter_sql(flt, params)
    params.append(cap + 1)
    cand = [
        int(r[0])
        for r in conn.execute(f"SELECT i.rowid FROM items i WHERE i.rowid <= ? AND {where} LIMIT ?", params)
    ]
    if len(cand) > cap:
        return None
    if matrix.loaded:
        rowids, scores = matrix.scores_for(qvec, np.sort(np.asarray(cand, dtype=np.int64)))
    else:
        rowids, scores = matrix.sparse.scored(conn, cand, qvec)
    order = top_order(scores, n)
    ranked = [(int(rowids[i]), unit_cosine(float(scores[i]))) for i in order]
    return SemanticOutcome(ranked, Plan.FILTER_FIRST)


def _in_blocks(
    conn: sqlite3.Connection,
    matrix: VectorMatrix,
    qvec: Floats,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    nodes: list[str],
) -> SemanticOutcome:
    """Score every row of the reach's namespaces from their blocks, then keep the best that pass the
    filter in SQL, widening as `_scan` does: the ranking the filter-first plan gives (the best `n` rows
    that pass, ties by lower rowid, the same cosines), without listing the reach's rows in SQL."""
    rowids, scores = matrix.scored_namespaces(conn, nodes, snapshot, max_rowid(conn), qvec)
    total = len(scores)
    # every row here is the reach's, so most pass (only state and kinds are left to check), and each
    # row checked is a look-up in SQL (about 2 us at 50,000 items): a small margin, widened if short
    k = min(total, n + BLOCK_MARGIN)
    while True:
        order = top_by_rowid(rowids, scores, k)
        picked = [int(r) for r in rowids[order]]
        ok = _visible(conn, picked, flt, snapshot)
        ranked = [(r, unit_cosine(float(scores[i]))) for r, i in zip(picked, order, strict=True) if r in ok]
        if len(ranked) >= n or k >= total:
            return SemanticOutcome(ranked[:n], Plan.REACH_BLOCKS)
        k = min(total, _widened(k, n, len(ranked)))


def _approximate(
    conn: sqlite3.Connection,
    graphs: ann_reads.GraphHolder,
    qvec: Floats,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    first: ann.FirstRound | None = None,
    expansion: int | None = None,
) -> SemanticOutcome | None:
    """The graph plan (see ann_reads.py), walking the graph at `expansion`; None when there is no
    graph yet, its tail is too long, or the filter passes too few of the rows the graph can be asked
    for."""
    graph = graphs.graph(conn, build=False)
    if graph is None:
        return None
    tail = ann_reads.scored_tail(conn, graph, qvec, snapshot, graphs.dim, graphs.embedder)
    if tail is None:
        graphs.extend()
        return None
    copy = graphs.copy(conn)
    k = ann_reads.first_k(n)
    while k <= ann_reads.MAX_K:
        found = ann_reads.candidates(
            conn, graph, qvec, snapshot, k, graphs.dim, graphs.embedder, tail, copy, first, expansion
        )
        ranked = _best_passing(conn, found.rowids, found.scores, unit_cosine, flt, snapshot, n)
        if len(ranked) >= n or found.exhausted:
            return SemanticOutcome(ranked, Plan.HNSW)
        k = _widened(k, n, len(ranked))
    return None


def _scan(
    conn: sqlite3.Connection,
    matrix: VectorMatrix,
    qvec: Floats,
    flt: MetaFilter,
    snapshot: int,
    n: int,
    early: EarlyScores | None,
) -> SemanticOutcome:
    """Score every row of the matrix, then keep the best that pass the filter in SQL."""
    all_rowids, scores = matrix.scored(qvec, snapshot, early)
    total = len(scores)
    k = min(total, 2 * n + 32)
    while True:
        order = top_order(scores, k)
        order = order[np.isfinite(scores[order])]
        picked = [int(all_rowids[i]) for i in order]
        ok = _visible(conn, picked, flt, snapshot)
        ranked = [(r, unit_cosine(float(scores[i]))) for r, i in zip(picked, order, strict=True) if r in ok]
        if len(ranked) >= n or k >= total:
            return SemanticOutcome(ranked[:n], Plan.SCAN)
        k = min(total, _widened(k, n, len(ranked)))


def _widened(k: int, n: int, passed: int) -> int:
    """The next number of candidates to ask for, when `passed` of `k` passed the filter and `n` are
    wanted: widened by the observed pass rate (at least 4x) so a narrow filter needs few rounds."""
    return k * max(4, int(1.5 * n / max(passed, 1)) + 1)


# Every indexed text of a row (title, text, summary): what the rerankers match query terms against.
_TEXT = "coalesce(i.title || char(10), '') || i.text || coalesce(char(10) || i.summary, '')"
# The active turns just before and after a row in its thread and namespace (index items_thread_ns).
_BEFORE = (
    "(SELECT p.rowid FROM items p WHERE p.thread_id = i.thread_id AND p.ns = i.ns AND p.rowid < i.rowid"
    " AND p.valid_to IS NULL AND p.forgotten_at IS NULL ORDER BY p.rowid DESC LIMIT 1)"
)
_AFTER = (
    "(SELECT n.rowid FROM items n WHERE n.thread_id = i.thread_id AND n.ns = i.ns AND n.rowid > i.rowid"
    " AND n.rowid <= ? AND n.valid_to IS NULL AND n.forgotten_at IS NULL ORDER BY n.rowid LIMIT 1)"
)

# The text's index terms as the lexical index stored them (`lex_docs`, the body analysed at store time),
# for a row whose indexed text is its body alone (no title, no summary): then they are exactly the terms
# `_TEXT` analyses to, and the rerankers split them instead of analysing the text again (Light.analysed)
_ANALYSED = "CASE WHEN coalesce(i.title, '') = '' AND coalesce(i.summary, '') = '' THEN d.body END"

# Only a turn of a thread has neighbours: the look-ups are skipped for the rest (a third of the query's
# cost over a pool of memories outside any thread).
_NEIGHBOURS = (
    f"CASE WHEN i.thread_id IS NULL THEN NULL ELSE {_BEFORE} END,"
    f" CASE WHEN i.thread_id IS NULL THEN NULL ELSE {_AFTER} END"
)


# Detailed light rows a LightCache keeps: the shared tiers' memories reach most users' pools
LIGHT_ROWS = 8_192


class LightCache:
    """The detailed light columns of rows outside any thread, by rowid. Every one of those columns is
    written once with its row and never updated (a state change writes others; a rowid is never
    reused), so a row pooled again reads the same values: in a user's recall most candidates come
    from the shared tiers every user of an agent reads, and reading them again was a tenth of the
    fetch. A turn of a thread is never kept: its neighbours change as its thread grows. Only rows a
    read's own lists named enter it, and `clear` empties it (after a forget or a purge here)."""

    __slots__ = ("_lock", "_rows")

    def __init__(self) -> None:
        self._rows: dict[int, Light] = {}
        self._lock = threading.Lock()

    def split(self, rowids: list[int]) -> tuple[dict[int, Light], list[int]]:
        """The rows held, and the rowids to read."""
        held, missing = {}, []
        rows = self._rows
        for r in rowids:
            lt = rows.get(r)
            if lt is None:
                missing.append(r)
            else:
                held[r] = lt
        return held, missing

    def keep(self, read: dict[int, Light]) -> None:
        """Hold the rows just read that no thread has (the oldest ones go first past LIGHT_ROWS)."""
        with self._lock:
            rows = self._rows
            for r, lt in read.items():
                if lt.thread is None:
                    rows[r] = lt
            while len(rows) > LIGHT_ROWS:
                del rows[next(iter(rows))]

    def clear(self) -> None:
        with self._lock:
            self._rows = {}


def light_rows(
    conn: sqlite3.Connection,
    rowids: list[int],
    detailed: bool = False,
    snapshot: int | None = None,
    cache: LightCache | None = None,
) -> dict[int, Light]:
    """The light columns of candidate rows (fusion priors, time spans); `detailed` adds what the
    rerankers read: the indexed text, source, thread, the thread's neighbouring turns up to
    `snapshot` and the extra column (where a host may keep the speaker). A `cache` serves the
    detailed rows it holds and keeps those read."""
    if detailed and cache is not None:
        held, missing = cache.split(rowids)
        if missing:
            read = light_rows(conn, missing, True, snapshot)
            cache.keep(read)
            held.update(read)
        return held
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples, made into Light in C (a fetch makes one per candidate)
    if not detailed:
        rows = cur.execute(
            "SELECT i.rowid, i.confidence, i.observed_at, i.event_from, i.event_to,"
            " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"  # the detailed columns, not read
            " FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value",
            (json.dumps(rowids),),
        )
    else:
        rows = cur.execute(
            f"SELECT i.rowid, i.confidence, i.observed_at, i.event_from, i.event_to, {_TEXT},"
            f" coalesce(i.source_id, i.source_kind), i.ns, i.thread_id, {_NEIGHBOURS},"
            f" nullif(i.extra, '{{}}'), {_ANALYSED}"
            " FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value"
            f" LEFT JOIN {lexstats.DOCS} d ON d.doc = i.rowid",
            (snapshot if snapshot is not None else max_rowid(conn), json.dumps(rowids)),
        )
    make = Light._make
    return {r[0]: make(r[1:]) for r in rows}


def max_rowid(conn: sqlite3.Connection) -> int:
    """The snapshot a fetch (and every later page of it) reads up to."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM items").fetchone()[0])


def still_visible(conn: sqlite3.Connection, ranked: Ranked, flt: MetaFilter, snapshot: int) -> Ranked:
    """Drop rows forgotten or superseded since an earlier transaction ranked them."""
    if not ranked:
        return ranked
    ok = _visible(conn, [r for r, _ in ranked], flt, snapshot)
    return [r for r in ranked if r[0] in ok]


LATEST_OBSERVED_SQL = (
    "SELECT i.observed_at FROM items i WHERE +i.rowid <= ? AND {where} ORDER BY i.observed_at DESC LIMIT 1"
)


# The same for one namespace of a reach: its own observed_at index, from its newest row.
LATEST_IN_NS_SQL = (
    "SELECT i.observed_at FROM items i WHERE i.ns = ? AND +i.rowid <= ? AND {where}"
    " ORDER BY i.observed_at DESC LIMIT 1"
)


def latest_observed(conn: sqlite3.Connection, flt: MetaFilter, snapshot: int) -> datetime | None:
    """The newest observed_at the filter reads: what "yesterday" in a question is relative to.

    A reach of exact namespaces asks each namespace for its newest row: one query over the reach
    went through every row it holds, each of its kinds, then sorted them (a user's 2,250 rows at
    50,000 items)."""
    nodes = exact_nodes(flt)
    if nodes is None:
        params: Params = [snapshot]
        where = filter_sql(flt, params)
        # `+rowid` keeps the planner off the rowid range (a whole-table scan and sort: 27 ms at 100k) so
        # it walks the observed_at index from the newest row and stops at the first match
        row = conn.execute(LATEST_OBSERVED_SQL.format(where=where), params).fetchone()
        return None if row is None else from_us(int(row[0]))
    newest: int | None = None
    for ns in nodes:
        params = [ns, snapshot]
        where = filter_sql(flt, params)
        row = conn.execute(LATEST_IN_NS_SQL.format(where=where), params).fetchone()
        if row is not None and (newest is None or int(row[0]) > newest):
            newest = int(row[0])
    return None if newest is None else from_us(newest)
