"""The reranker's weights: one linear model per fetch mode over the features of features.py.

A candidate's score is the logistic of `bias + sum(weight * feature)`, a relevance in (0, 1). The
weights were fitted by `bench/fit_reranker.py` on LoCoMo conversations 0-1 only (logistic regression,
positives up-weighted to balance the classes, mild L2) and checked on conversations 2-3; that script
rewrites this file. They are plain constants: the reranker loads nothing and learns nothing at run time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tinymemory.retrieval.features import FEATURES

# (bias, {feature: weight}); a feature a mode does not list weighs 0 there.
MODELS: dict[str, tuple[float, dict[str, float]]] = {
    "hybrid": (
        -8.5528,
        {
            "sem_norm": 2.0874,
            "lex_rank": 2.1462,
            "sem_rank": -0.2111,
            "cosine": 1.6954,
            "lex_raw": -0.4267,
            "speaker": 2.4341,
            "coverage": 1.6579,
            "neighbour": 3.4384,
            "thread_best": 0.5522,
            "thread_count": 0.4698,
            "question": -0.8682,
            "length": 0.9227,
        },
    ),
    "lexical": (
        -8.2198,
        {
            "lex_rank": 3.3398,
            "lex_raw": 1.9151,
            "speaker": 2.3061,
            "coverage": 1.8137,
            "neighbour": 2.2479,
            "thread_best": 1.9625,
            "thread_count": 0.4298,
            "question": -0.7391,
            "length": 0.4503,
        },
    ),
}


def model_for(mode: str) -> tuple[float, Mapping[str, float]] | None:
    """The weights of `mode`'s model, or None when that mode has none (its order is left as it is)."""
    return MODELS.get(mode)


def relevance(row: Sequence[float], bias: float, weights: Mapping[str, float], off: frozenset[str]) -> float:
    """The model's score of one feature row, with the features in `off` read as 0."""
    z = bias + sum(
        weights.get(name, 0.0) * x for name, x in zip(FEATURES, row, strict=True) if name not in off
    )
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))
