"""The reranker's weights: one linear model per fetch mode over the features of features.py.

A candidate's score is the logistic of `bias + sum(weight * feature)`, a relevance in (0, 1). The
weights were fitted by `bench/fit_reranker.py` on LoCoMo conversations 0-1 only (logistic regression,
positives up-weighted to balance the classes, mild L2) and checked on conversations 2-3; that script
rewrites this file. They are plain constants: the reranker loads nothing and learns nothing at run time.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from tinymemory.retrieval.features import FEATURES

# (bias, {feature: weight}); a feature a mode does not list weighs 0 there.
MODELS: dict[str, tuple[float, dict[str, float]]] = {
    "hybrid": (
        -8.4381,
        {
            "sem_norm": 0.7050,
            "lex_rank": 2.9176,
            "sem_rank": 0.7001,
            "cosine": 2.5862,
            "lex_raw": -0.9313,
            "speaker": 2.4324,
            "coverage": 1.7480,
            "neighbour": 3.1360,
            "thread_best": 0.5867,
            "thread_count": 0.3297,
            "question": -0.9336,
            "length": 0.7793,
            "dated": 0.4509,
        },
    ),
    "lexical": (
        -7.3521,
        {
            "lex_rank": 3.5783,
            "lex_raw": 0.4402,
            "speaker": 2.2676,
            "coverage": 1.9516,
            "neighbour": 2.8124,
            "thread_best": 1.5430,
            "thread_count": 0.5972,
            "question": -0.8203,
            "length": 0.4135,
            "dated": 0.6672,
        },
    ),
}


def model_for(mode: str) -> tuple[float, Mapping[str, float]] | None:
    """The weights of `mode`'s model, or None when that mode has none (its order is left as it is)."""
    return MODELS.get(mode)


Linear = list[tuple[int, float]]
"""A model's weights as (position in FEATURES, weight), the features read as 0 left out."""


def linear(weights: Mapping[str, float], off: frozenset[str]) -> Linear:
    """The weights laid out once per ranking, for `relevance_of` over each of its rows. A weight of 0
    is left out too: adding its product (0, features being finite) leaves every partial sum as it was."""
    laid_out = ((i, weights.get(name, 0.0)) for i, name in enumerate(FEATURES) if name not in off)
    return [(i, w) for i, w in laid_out if w != 0.0]


def relevance_of(row: Sequence[float], bias: float, weights: Linear) -> float:
    """The model's score of one feature row, by weights `linear` laid out."""
    z = bias + sum(w * row[i] for i, w in weights)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


# Python's `sum` of floats adds them one by one up to 3.11 and compensates the rounding from 3.12 on;
# `relevances` adds a column at a time, which is the same sum only where `sum` does no compensation
_PLAIN_SUM = sys.version_info < (3, 12)


def relevances(features: npt.NDArray[np.float64], bias: float, weights: Linear) -> list[float]:
    """`relevance_of` of each row of `features` (a row per candidate), the same floats: each row's
    products are added in the same order, a column at a time over every row."""
    if not _PLAIN_SUM:
        return [relevance_of(row, bias, weights) for row in features.tolist()]
    z = np.zeros(len(features), dtype=np.float64)
    for i, w in weights:
        z = z + w * features[:, i]
    exp = math.exp  # numpy's exp may round differently from the math module's: the scores stay its
    return [1.0 / (1.0 + exp(-s)) for s in np.clip(bias + z, -60.0, 60.0).tolist()]


def relevance(row: Sequence[float], bias: float, weights: Mapping[str, float], off: frozenset[str]) -> float:
    """The model's score of one feature row, with the features in `off` read as 0."""
    if len(row) != len(FEATURES):
        raise ValueError(f"a feature row has {len(FEATURES)} values, got {len(row)}")
    return relevance_of(row, bias, linear(weights, off))
