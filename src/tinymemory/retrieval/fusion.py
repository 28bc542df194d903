"""Reciprocal rank fusion: merge ranked lists by rank, not by incomparable raw scores."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


def rrf(
    rankings: Sequence[Sequence[K]],
    *,
    k: int = DEFAULT_K,
    weights: Sequence[float] | None = None,
    priors: Mapping[K, float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse best-first rankings; return (key, score) best first, scores in (0, 1].

    The score is sum(w / (k + rank)) divided by its maximum (first in every list), so it is comparable
    across queries and monotonic with the order. `priors` (0..1 multipliers, default 1) nudge the order;
    ties keep first-appearance order, so the result is deterministic.
    """
    if k < 1:
        raise ValueError("rrf: `k` must be at least 1")
    ws = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(ws) != len(rankings):
        raise ValueError("rrf: `weights` must have one weight per ranking")
    if any(w < 0 for w in ws):
        raise ValueError("rrf: `weights` must not be negative")
    best = sum(ws) / (k + 1)
    scores: dict[K, float] = {}
    for ranking, w in zip(rankings, ws, strict=True):
        seen: set[K] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    if best <= 0:
        return [(key, 0.0) for key in scores]
    fused = {key: s / best for key, s in scores.items()}
    if priors:
        fused = {key: s * min(1.0, max(0.0, priors.get(key, 1.0))) for key, s in fused.items()}
    order = {key: i for i, key in enumerate(scores)}
    return sorted(fused.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def confidence_prior(confidence: float | None, *, strength: float = 0.05, default: float = 0.8) -> float:
    """A small multiplier in [1 - strength, 1]: confident memory wins ties, never buries relevance."""
    c = default if confidence is None else min(1.0, max(0.0, confidence))
    return 1.0 - strength + strength * c
