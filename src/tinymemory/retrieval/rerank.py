"""A cheap reranker: query-term coverage, weighted by how rare each term is.

bm25 can rank a text that repeats one query term above one that holds them all; coverage rewards the
latter. It costs one analysis of each pooled text, so it fits a fetch's latency budget where a
cross-encoder over the same pool would not.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def idf(doc_freq: int, docs: int) -> float:
    """A smoothed inverse document frequency, positive for every term."""
    return math.log(1.0 + max(docs, 1) / (1.0 + max(doc_freq, 0)))


def coverage(query_terms: Sequence[str], text_terms: AbstractSet[str], weights: Mapping[str, float]) -> float:
    """The weighted share of query terms present in the text, in [0, 1]."""
    return coverage_of(query_terms, weights)(text_terms)


def coverage_of(
    query_terms: Sequence[str], weights: Mapping[str, float]
) -> Callable[[AbstractSet[str]], float]:
    """`coverage` of one query, its weights summed once, for each of many texts."""
    weighted = [(t, weights.get(t, 1.0)) for t in query_terms]
    total = sum(w for _, w in weighted)
    if total <= 0:
        return lambda text_terms: 0.0
    return lambda text_terms: sum(w for t, w in weighted if t in text_terms) / total


# Python's `sum` of floats adds them one by one up to 3.11 and compensates the rounding from 3.12 on; a
# sum taken a term (or a feature) at a time over many texts is the same floats only where it does not
PLAIN_SUM = sys.version_info < (3, 12)


def coverages(
    query_terms: Sequence[str], weights: Mapping[str, float], texts_terms: Sequence[AbstractSet[str]]
) -> list[float]:
    """`coverage` of each of many texts, the same floats: the weights of the terms each text holds are
    added in the query's order, one query term at a time over every text."""
    covered = coverage_of(query_terms, weights)
    weighted = [(t, weights.get(t, 1.0)) for t in query_terms]
    total = sum(w for _, w in weighted)
    if not PLAIN_SUM or total <= 0:
        return [covered(terms) for terms in texts_terms]
    held: list[float | int] = [0] * len(texts_terms)  # `sum` starts from the integer 0
    for t, w in weighted:
        held = [h + w if t in terms else h for h, terms in zip(held, texts_terms, strict=True)]
    return [h / total for h in held]


def rerank_by_coverage(
    ranked: Sequence[tuple[K, float]],
    query_terms: Sequence[str],
    terms_of: Callable[[K], AbstractSet[str]],
    weights: Mapping[str, float],
    strength: float,
) -> list[tuple[K, float]]:
    """score * (1 + strength * coverage), re-sorted; ties keep the incoming order."""
    if not query_terms or strength <= 0:
        return list(ranked)
    covered = coverage_of(query_terms, weights)
    rescored = [(key, s * (1.0 + strength * covered(terms_of(key)))) for key, s in ranked]
    order = {key: i for i, (key, _) in enumerate(ranked)}
    return sorted(rescored, key=lambda kv: (-kv[1], order[kv[0]]))
