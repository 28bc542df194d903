"""bm25 over postings and statistics that the caller scopes: the formula FTS5 uses, made engine-neutral.

An engine hands over, for the rows inside a read's reach, each (row, term) field-weighted frequency and
each row's length, with the reach's row count, token count and per-term row counts. The scores then depend on
nothing outside the reach, which is the first privacy rule (docs/architecture/privacy.md). With the
whole store as the scope the result equals SQLite FTS5's `bm25()` (k1 1.2, b 0.75, per-column weights,
idf floored at 1e-6), so both paths rank alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6


def term_idf(docs: int, doc_freq: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), floored so a very common term still counts a little."""
    value = math.log((docs - doc_freq + 0.5) / (doc_freq + 0.5)) if docs > 0 else 0.0
    return value if value > 0 else IDF_FLOOR


def bm25(
    rows: Sequence[tuple[int, str, float, int]],
    docs: int,
    tokens: int,
    doc_freq: Mapping[str, int],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Scores (higher is better) of the rows that `rows` mention, from one tuple per (row, term):
    (row id, term, field-weighted frequency of the term in the row, the row's length in tokens).

    Returns (row ids ascending, their scores). Vectorised: a fetch pool's postings are scored in one
    pass rather than one Python step per posting.
    """
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    rowid, term, weighted, row_length = zip(*rows, strict=True)  # the columns, in C
    ids = np.array(rowid, dtype=np.int64)
    freq = np.array(weighted, dtype=np.float64)
    length = np.array(row_length, dtype=np.float64)
    idf_of = {t: term_idf(docs, n) for t, n in doc_freq.items()}
    unseen = term_idf(docs, 0)
    idf = np.array([idf_of.get(t, unseen) for t in term], dtype=np.float64)
    avgdl = tokens / docs if docs > 0 and tokens > 0 else 1.0
    part = idf * (freq * (K1 + 1.0)) / (freq + K1 * (1.0 - B + B * length / avgdl))
    if len(ids) > 1 and bool(np.all(ids[1:] >= ids[:-1])):  # in row order (a scoped read's): no sort
        starts = np.empty(len(ids), dtype=bool)
        starts[0] = True
        np.not_equal(ids[1:], ids[:-1], out=starts[1:])
        unique, where = ids[starts], np.cumsum(starts) - 1
    else:
        unique, where = np.unique(ids, return_inverse=True)
    return unique, np.bincount(where, weights=part).astype(np.float64)
