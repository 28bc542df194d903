"""bm25 over postings and statistics that the caller scopes: the formula FTS5 uses, made engine-neutral.

An engine hands over, for the rows inside a read's reach, each (term, row, field) frequency and each
row's length, with the reach's row count, token count and per-term row counts. The scores then depend on
nothing outside the reach, which is the first privacy rule (docs/architecture/privacy.md). With the
whole store as the scope the result equals SQLite FTS5's `bm25()` (k1 1.2, b 0.75, per-column weights,
idf floored at 1e-6), so both paths rank alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6


@dataclass(frozen=True, slots=True)
class Posting:
    """How often `term` occurs in one field of row `row`, whose indexed length is `length` tokens."""

    term: str
    row: int
    field: str
    count: int
    length: int


def term_idf(docs: int, doc_freq: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), floored so a very common term still counts a little."""
    value = math.log((docs - doc_freq + 0.5) / (doc_freq + 0.5)) if docs > 0 else 0.0
    return value if value > 0 else IDF_FLOOR


def bm25(
    postings: Iterable[Posting],
    docs: int,
    tokens: int,
    doc_freq: Mapping[str, int],
    field_weights: Mapping[str, float],
) -> dict[int, float]:
    """Score per row (higher is better) from postings inside the scope; fields absent from
    `field_weights` count zero."""
    freq: dict[int, dict[str, float]] = {}
    length: dict[int, int] = {}
    for p in postings:
        w = field_weights.get(p.field, 0.0)
        if w <= 0:
            continue
        per_term = freq.setdefault(p.row, {})
        per_term[p.term] = per_term.get(p.term, 0.0) + w * p.count
        length[p.row] = p.length
    if not freq:
        return {}
    avgdl = tokens / docs if docs > 0 and tokens > 0 else 1.0
    idf = {t: term_idf(docs, n) for t, n in doc_freq.items()}
    scores: dict[int, float] = {}
    for row, per_term in freq.items():
        norm = K1 * (1.0 - B + B * length[row] / avgdl)
        scores[row] = sum(
            idf.get(t, term_idf(docs, 0)) * (f * (K1 + 1.0)) / (f + norm) for t, f in per_term.items()
        )
    return scores
