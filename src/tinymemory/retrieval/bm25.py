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


def average_length(docs: int, tokens: int) -> float:
    """The mean row length bm25 normalises by (FTS5's: tokens / rows)."""
    return tokens / docs if docs > 0 and tokens > 0 else 1.0


def exact_sums(weights: Sequence[float]) -> bool:
    """Whether field-weighted frequencies with these weights are exact as products (`count * weight`
    summed over the fields): every weight a multiple of 2**-16 below 2**16, so no sum of a posting's
    occurrences rounds, and a product equals FTS5's one-by-one additions."""
    return all(0 <= w < 2**16 and float(w * 2**16).is_integer() for w in weights)


def weighted_frequency(
    counts: Sequence[npt.NDArray[np.int64]], weights: Sequence[float]
) -> npt.NDArray[np.float64]:
    """Each posting's field-weighted frequency from its per-field counts, the float FTS5 sums: a field's
    weight added once per occurrence, field after field. With weights whose products cannot round
    (`exact_sums`) that is the sum of the products; otherwise the occurrences are added one by one."""
    out = np.zeros(len(counts[0]) if counts else 0, dtype=np.float64)
    if exact_sums(weights):
        for count, weight in zip(counts, weights, strict=True):
            if weight:
                out += count * weight
        return out
    for count, weight in zip(counts, weights, strict=True):
        for j in range(int(count.max()) if weight and len(count) else 0):
            more = count > j
            out[more] += weight
    return out


def scores(
    ids: npt.NDArray[np.int64],
    freq: npt.NDArray[np.float64],
    length: npt.NDArray[np.float64],
    idf: npt.NDArray[np.float64],
    avgdl: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The one bm25 formula, per posting (row, weighted frequency, row length, the term's idf), in
    FTS5's evaluation order (idf * (num / denom)), summed per row in the postings' order: postings
    grouped by row, each row's in query-term order, give FTS5's `bm25()` float for float.

    Returns (row ids in first-seen order, their scores)."""
    part = idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1.0 - B + B * length / avgdl)))
    return row_sums(ids, part)


def row_sums(
    ids: npt.NDArray[np.int64], part: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Each row's terms summed, postings grouped by row (in the order to add them): (rows, sums)."""
    if len(ids) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    starts = np.empty(len(ids), dtype=bool)
    starts[0] = True
    np.not_equal(ids[1:], ids[:-1], out=starts[1:])
    # bincount adds each bin's weights in array order, one by one, as FTS5 adds its phrases
    return ids[starts], np.bincount(np.cumsum(starts) - 1, weights=part).astype(np.float64)


def bm25(
    rows: Sequence[tuple[int, str, float, int]],
    docs: int,
    tokens: int,
    doc_freq: Mapping[str, int],
    order: Sequence[str] = (),
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Scores (higher is better) of the rows that `rows` mention, from one tuple per (row, term):
    (row id, term, field-weighted frequency of the term in the row, the row's length in tokens).
    Each row's terms are summed in `order` (the query's terms) when given, else as `rows` list them.

    Returns (row ids ascending, their scores). Vectorised: a fetch pool's postings are scored in one
    pass rather than one Python step per posting.
    """
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    rowid, term, weighted, row_length = zip(*rows, strict=True)  # the columns, in C
    ids = np.array(rowid, dtype=np.int64)
    idf_of = {t: term_idf(docs, n) for t, n in doc_freq.items()}
    unseen = term_idf(docs, 0)
    idf = np.array([idf_of.get(t, unseen) for t in term], dtype=np.float64)
    if order:
        place = {t: i for i, t in enumerate(order)}
        by = np.lexsort((np.array([place.get(t, len(place)) for t in term]), ids))
    else:
        by = np.argsort(ids, kind="stable")
    freq = np.array(weighted, dtype=np.float64)[by]
    length = np.array(row_length, dtype=np.float64)[by]
    return scores(ids[by], freq, length, idf[by], average_length(docs, tokens))
