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


def minmax(scored: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scores rescaled to [0, 1] over this list (best 1, worst 0; a single or flat list scores 1)."""
    if not scored:
        return {}
    hi = max(s for _, s in scored)
    lo = min(s for _, s in scored)
    span = hi - lo
    return {key: ((s - lo) / span if span > 0 else 1.0) for key, s in scored}


def convex(
    scored: Sequence[Sequence[tuple[K, float]]],
    weights: Sequence[float],
    *,
    priors: Mapping[K, float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse (key, score) lists by a convex combination of their min-max normalised scores.

    Unlike rank fusion this keeps how far apart scores are: a list that is sure of its first hit
    outweighs one whose top scores are all alike. A key missing from a list gets 0 from it. Weights
    are normalised to sum to 1, so a fused score is in [0, 1]; ties keep first-appearance order.
    """
    if len(weights) != len(scored):
        raise ValueError("convex: `weights` must have one weight per list")
    if any(w < 0 for w in weights):
        raise ValueError("convex: `weights` must not be negative")
    total = sum(weights)
    fused: dict[K, float] = {}
    for lst, w in zip(scored, weights, strict=True):
        for key, s in minmax(lst).items():
            fused[key] = fused.get(key, 0.0) + (w / total if total > 0 else 0.0) * s
    if priors:
        fused = {key: s * min(1.0, max(0.0, priors.get(key, 1.0))) for key, s in fused.items()}
    order = {key: i for i, key in enumerate(fused)}
    return sorted(fused.items(), key=lambda kv: (-kv[1], order[kv[0]]))
