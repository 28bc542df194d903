"""Why a fetch returned what it did: what each ranking stage gave each candidate, kept only on request.

`pipeline.rank` fills a `Trace` as its stages run when a fetch asks to explain (FetchRequest.explain);
`signals` then reads the page's rows off it. Every value comes from the fetch's own candidate lists, its
reach's statistics and the rows' own columns, so an explanation says nothing the fetch could not see.
Without a trace the stages run as they always do: nothing is recorded and nothing is computed twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tinymemory.api.requests import Why

Ranked = list[tuple[int, float]]


@dataclass(slots=True)
class Trace:
    """What `rank`'s stages gave each candidate row: the hybrid fusion's scores, the feature reranker's
    feature array (a row per candidate, `row_of` its row, columns by `names`; only the page's rows are
    read off it), relevances and priors, the coverage reranker's scores, the rows a time hint matched
    and how (`time`: "boosted" or "first"), the derived hint's boost, the rows `day_first` lifted above
    the rest (`first`: their reason is "first", whatever `time` says of the others), and the rows whose
    score the links stage gave, with the name (an analysed term) that linked them."""

    fused: dict[int, float] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    rows: npt.NDArray[np.float64] | None = None
    row_of: dict[int, int] = field(default_factory=dict)
    relevance: dict[int, float] = field(default_factory=dict)
    prior: dict[int, float] = field(default_factory=dict)
    coverage: dict[int, float] = field(default_factory=dict)
    timed: set[int] = field(default_factory=set)
    time: str | None = None
    boost: float | None = None
    first: set[int] = field(default_factory=set)
    linked: dict[int, str] = field(default_factory=dict)


def _places(ranked: Ranked) -> dict[int, tuple[int, float]]:
    return {row: (i + 1, score) for i, (row, score) in enumerate(ranked)}


def signals(page: Ranked, offset: int, lexical: Ranked, semantic: Ranked, trace: Trace) -> dict[int, Why]:
    """The `Why` of each row of `page` (the final order from `offset`), by row key."""
    lex, sem = _places(lexical), _places(semantic)
    out: dict[int, Why] = {}
    for i, (row, score) in enumerate(page):
        lx, sm = lex.get(row), sem.get(row)
        at = trace.row_of.get(row)
        feats = None if at is None or trace.rows is None else trace.rows[at].tolist()
        time = "first" if row in trace.first else trace.time if row in trace.timed else None
        out[row] = Why(
            score=score,
            rank=offset + i + 1,
            lexical=None if lx is None else lx[1],
            lexical_rank=None if lx is None else lx[0],
            semantic=None if sm is None else sm[1],
            semantic_rank=None if sm is None else sm[0],
            fused=trace.fused.get(row),
            features=None if feats is None else tuple(zip(trace.names, feats, strict=True)),
            reranker=trace.relevance.get(row),
            prior=trace.prior.get(row),
            coverage=trace.coverage.get(row),
            time=time,
            time_boost=trace.boost if time == "boosted" else None,
            linked=trace.linked.get(row),
        )
    return out
