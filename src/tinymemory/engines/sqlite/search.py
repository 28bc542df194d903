"""Ranking for fetch: lexical (FTS5 bm25), semantic (the vector matrix) and hybrid (rank fusion).

Each ranker returns (rowid, score) best first, scores in [0, 1], restricted to the filter and to rows
at or below the cursor's snapshot rowid.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from tinymemory.api.filters import MetaFilter, TimeHint
from tinymemory.engines.sqlite.rows import from_us
from tinymemory.engines.sqlite.vectors import Floats, VectorMatrix, top_order
from tinymemory.engines.sqlite.where import Params, filter_sql, is_selective
from tinymemory.retrieval.fusion import confidence_prior, rrf
from tinymemory.retrieval.temporal import partition_by_hint, span_matches, span_of
from tinymemory.retrieval.text import Analyzer, fts_match_expression

Ranked = list[tuple[int, float]]

TITLE_WEIGHT = 2.0


class Plan(StrEnum):
    """How a semantic search met its filter."""

    SCAN = "scan"  # score every row, then keep the best that pass the filter in SQL
    FILTER_FIRST = "filter_first"  # read the (few) rows the filter allows, score only those


def filter_first_cap(matrix_rows: int) -> int:
    """Largest candidate set worth scoring row by row; beyond it one full scan is cheaper."""
    return max(1000, matrix_rows // 20)


def lexical(
    conn: sqlite3.Connection, analyzer: Analyzer, query: str, flt: MetaFilter, snapshot: int, n: int
) -> Ranked:
    terms = analyzer.query_terms(query)
    if not terms or n <= 0:
        return []
    params: Params = [fts_match_expression(terms), snapshot]
    where = filter_sql(flt, params)
    params.append(n)
    # CROSS JOIN keeps FTS5 as the outer loop: probing MATCH once per filtered row would be far slower.
    rows = conn.execute(
        f"SELECT items_fts.rowid, bm25(items_fts, {TITLE_WEIGHT}, 1.0) AS r FROM items_fts"
        f" CROSS JOIN items i ON i.rowid = items_fts.rowid"
        f" WHERE items_fts MATCH ? AND items_fts.rowid <= ? AND {where} ORDER BY r, items_fts.rowid LIMIT ?",
        params,
    ).fetchall()
    out: Ranked = []
    for rowid, rank in rows:
        s = max(0.0, -float(rank))
        out.append((int(rowid), s / (1.0 + s)))
    return out


def _visible(conn: sqlite3.Connection, rowids: list[int], flt: MetaFilter, snapshot: int) -> set[int]:
    params: Params = [json.dumps(rowids), snapshot]
    where = filter_sql(flt, params)
    rows = conn.execute(
        f"SELECT i.rowid FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value WHERE i.rowid <= ?"
        f" AND {where}",
        params,
    )
    return {int(r[0]) for r in rows}


@dataclass
class SemanticOutcome:
    ranked: Ranked
    plan: Plan


def semantic(
    conn: sqlite3.Connection, matrix: VectorMatrix, qvec: Floats, flt: MetaFilter, snapshot: int, n: int
) -> SemanticOutcome:
    matrix.refresh(conn)
    if n <= 0 or matrix.size == 0:
        return SemanticOutcome([], Plan.SCAN)
    if is_selective(flt):
        cap = filter_first_cap(matrix.size)
        params: Params = [snapshot]
        where = filter_sql(flt, params)
        params.append(cap + 1)
        cand = [
            int(r[0])
            for r in conn.execute(
                f"SELECT i.rowid FROM items i WHERE i.rowid <= ? AND {where} LIMIT ?", params
            )
        ]
        if len(cand) <= cap:
            rowids, scores = matrix.scores_for(qvec, np.sort(np.asarray(cand, dtype=np.int64)))
            order = top_order(scores, n)
            return SemanticOutcome(
                [(int(rowids[i]), _unit(float(scores[i]))) for i in order], Plan.FILTER_FIRST
            )
    scores = matrix.scores(qvec, snapshot)
    all_rowids = matrix.rowids
    total = len(scores)
    k = min(total, 2 * n + 32)
    while True:
        order = top_order(scores, k)
        order = order[np.isfinite(scores[order])]
        picked = [int(all_rowids[i]) for i in order]
        ok = _visible(conn, picked, flt, snapshot)
        ranked = [(int(all_rowids[i]), _unit(float(scores[i]))) for i in order if int(all_rowids[i]) in ok]
        if len(ranked) >= n or k >= total:
            return SemanticOutcome(ranked[:n], Plan.SCAN)
        k = min(total, k * 4)


def _unit(cosine: float) -> float:
    return min(1.0, max(0.0, cosine))


@dataclass(frozen=True, slots=True)
class Light:
    """The few columns ranking needs beyond the score (priors and time hints), without decoding items."""

    confidence: float | None
    observed_at: int
    event_from: int | None
    event_to: int | None


def light_rows(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, Light]:
    rows = conn.execute(
        "SELECT i.rowid, i.confidence, i.observed_at, i.event_from, i.event_to"
        " FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value",
        (json.dumps(rowids),),
    )
    return {int(r[0]): Light(r[1], int(r[2]), r[3], r[4]) for r in rows}


def fuse(
    lex: Ranked, sem: Ranked, light: dict[int, Light], weights: tuple[float, float] = (1.0, 1.0)
) -> Ranked:
    priors = {rowid: confidence_prior(light[rowid].confidence) for rowid in light}
    fused = rrf([[r for r, _ in lex], [r for r, _ in sem]], weights=weights, priors=priors)
    return [(int(r), s) for r, s in fused]


def in_hint(lt: Light, hint: TimeHint) -> bool:
    span = span_of(
        None if lt.event_from is None else from_us(lt.event_from),
        None if lt.event_to is None else from_us(lt.event_to),
        from_us(lt.observed_at),
    )
    return span is not None and span_matches(span[0], span[1], hint)


def apply_hint(ranked: Ranked, light: dict[int, Light], hint: TimeHint | None) -> Ranked:
    """Stable partition: rows about the hinted days first; nothing dropped."""
    if hint is None:
        return ranked
    return partition_by_hint(ranked, hint, lambda r: r[0] in light and in_hint(light[r[0]], hint))
