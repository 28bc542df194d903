"""A cheap reranker: query-term coverage, weighted by how rare each term is.

bm25 can rank a text that repeats one query term above one that holds them all; coverage rewards the
latter. It costs one analysis of each pooled text, so it fits a fetch's latency budget where a
cross-encoder over the same pool would not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def idf(doc_freq: int, docs: int) -> float:
    """A smoothed inverse document frequency, positive for every term."""
    return math.log(1.0 + max(docs, 1) / (1.0 + max(doc_freq, 0)))


def coverage(query_terms: Sequence[str], text_terms: AbstractSet[str], weights: Mapping[str, float]) -> float:
    """The weighted share of query terms present in the text, in [0, 1]."""
    total = sum(weights.get(t, 1.0) for t in query_terms)
    if total <= 0:
        return 0.0
    return sum(weights.get(t, 1.0) for t in query_terms if t in text_terms) / total


def rerank_by_coverage(
    ranked: Sequence[tuple[K, float]],
    query_terms: Sequence[str],
    terms_of: Callable[[K], set[str]],
    weights: Mapping[str, float],
    strength: float,
) -> list[tuple[K, float]]:
    """score * (1 + strength * coverage), re-sorted; ties keep the incoming order."""
    if not query_terms or strength <= 0:
        return list(ranked)
    rescored = [
        (key, s * (1.0 + strength * coverage(query_terms, terms_of(key), weights))) for key, s in ranked
    ]
    order = {key: i for i, (key, _) in enumerate(ranked)}
    return sorted(rescored, key=lambda kv: (-kv[1], order[kv[0]]))
