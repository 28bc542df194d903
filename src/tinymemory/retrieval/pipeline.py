"""The ranking pipeline every engine shares: from scoped candidates to the final order of a fetch.

An engine stores, filters and generates candidates: a lexical list and a semantic list (row key and a
score in [0, 1], best first), the reach's lexical statistics, and a few light columns of each candidate.
Everything after that (rank fusion, the confidence prior, the coverage reranker, time boosts and hint
partitions, paging) is here, as pure functions, so that every engine ranks the same way and a ranking
change is made once. Row keys are the engine's own integer row ids; they also break score ties, so an
engine's row ids should grow with write order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from tinymemory.api.filters import FetchMode, MetaFilter, TimeHint
from tinymemory.api.requests import Why
from tinymemory.api.timeutil import from_us, to_us, utcnow
from tinymemory.retrieval.bm25 import bm25
from tinymemory.retrieval.config import RetrievalConfig
from tinymemory.retrieval.explain import Trace, signals
from tinymemory.retrieval.features import FEATURES, Candidate, feature_columns, own_event
from tinymemory.retrieval.fusion import confidence_prior, convex, rrf
from tinymemory.retrieval.links import link_terms, linked
from tinymemory.retrieval.query import QueryAnalysis, analysed, names_time
from tinymemory.retrieval.rerank import idf, rerank_by_coverage
from tinymemory.retrieval.rerank_model import linear, model_for, relevances
from tinymemory.retrieval.temporal import (
    FAR_FUTURE,
    FAR_PAST,
    boost_by_hint,
    hint_from_query,
    lift,
    names_one_day,
    partition_by_hint,
    span_matches,
    span_of,
)
from tinymemory.retrieval.text import Analyzer, term_set

Ranked = list[tuple[int, float]]
K = TypeVar("K")

MIN_POOL = 50
POSTINGS_BUDGET = 10_000
# Hybrid prunes harder: the semantic side finds what the dropped common terms would have.
HYBRID_POSTINGS_BUDGET = 4_000


def pool_size(limit: int) -> int:
    """Candidates per ranker for hybrid or re-ordered fetches (fixed per cursor so pages agree)."""
    return max(MIN_POOL, 3 * limit)


@dataclass(frozen=True, slots=True)
class ScopeStats:
    """Lexical corpus statistics of one read, all inside its reach: rows, tokens, per-term row counts."""

    docs: int
    tokens: int
    df: dict[str, int] = field(default_factory=dict)


class Light(NamedTuple):
    """The few columns ranking needs beyond a score (prior, time spans, the reranker's), times in
    microseconds since the epoch (UTC). The detailed columns (text onwards) are loaded only when a
    reranker reads them: `source` is the source's id, or its kind when it has none; `before`/`after`
    are the row keys of the active turns just before and after this one in its thread and namespace;
    `extra` is the row's extra column (tags, host metadata pairs), None when empty: where a host may
    have put the speaker (speakers.py). A named tuple: a fetch makes one per candidate, and a tuple is
    several times cheaper to make than a frozen dataclass."""

    confidence: float | None
    observed_at: int
    event_from: int | None
    event_to: int | None
    text: str | None = None
    source: str | None = None
    ns: str | None = None
    thread: str | None = None
    before: int | None = None
    after: int | None = None
    extra: str | None = None


@dataclass(frozen=True, slots=True)
class FetchPlan:
    """How many candidates a fetch asks each ranker for, and where its page starts.

    Every stage that re-orders (fusion, rerank, time) needs a fixed pool, so that later pages come
    from the same order; a plain lexical or semantic read only needs the rows up to its page's end.
    """

    mode: FetchMode
    pooled: bool
    pool: int
    offset: int
    want: int

    @classmethod
    def make(
        cls,
        mode: FetchMode,
        query: str | QueryAnalysis,
        limit: int,
        hint: TimeHint | None,
        cfg: RetrievalConfig,
        *,
        cursor_pool: int | None = None,
        cursor_offset: int = 0,
    ) -> FetchPlan:
        pooled = (
            mode is FetchMode.HYBRID
            or hint is not None
            or reranks(cfg)
            or models(mode, cfg)
            or (cfg.temporal.query_hints and names_time(query))
        )
        pool = cursor_pool if cursor_pool is not None else (pool_size(limit) if pooled else 0)
        want = pool if pooled else cursor_offset + limit + 1
        return cls(mode, pooled, pool, cursor_offset, want)

    def postings_budget(self) -> int:
        return HYBRID_POSTINGS_BUDGET if self.mode is FetchMode.HYBRID else POSTINGS_BUDGET


def prune(terms: list[str], doc_freq: Mapping[str, int], budget: int) -> list[str]:
    """Leave out the most common terms while the query's postings exceed `budget` (keeping at least the
    rarest term). bm25 weighs common terms little, and scoring every row they match is what makes
    lexical search slow on large stores. `doc_freq` must be the read's own reach's counts."""
    if len(terms) <= 1:
        return terms
    rarest_first = sorted(terms, key=lambda t: doc_freq.get(t, 0))
    total = sum(doc_freq.get(t, 0) for t in terms)
    while len(rarest_first) > 1 and total > budget:
        total -= doc_freq.get(rarest_first.pop(), 0)
    kept = set(rarest_first)
    return [t for t in terms if t in kept]


def unit_score(score: float) -> float:
    """A bm25 score (higher is better) mapped into [0, 1)."""
    s = max(0.0, float(score))
    return s / (1.0 + s)


def bm25_best(
    rows: Sequence[tuple[int, str, float, int]], stats: ScopeStats, n: int, terms: Sequence[str] = ()
) -> Ranked:
    """The best `n` rows by bm25 over postings rows (row, term, field-weighted frequency, row length)
    with the reach's statistics, as unit scores, ties by rowid: every engine's lexical ranker ends here.
    `terms` (the query's, in order) is the order each row's terms are summed in (bm25.bm25)."""
    rowids, scores = bm25(rows, stats.docs, stats.tokens, stats.df, terms)
    order = np.lexsort((rowids, -scores))[:n]
    return [(int(rowids[i]), unit_score(float(scores[i]))) for i in order]


def unit_cosine(cosine: float) -> float:
    """A cosine similarity clipped into [0, 1]."""
    return min(1.0, max(0.0, cosine))


def needs_light(
    mode: FetchMode, hint: TimeHint | None, derived: TimeHint | None, cfg: RetrievalConfig
) -> bool:
    """Whether `rank` reads the candidates' light columns (fusion priors, time spans, coverage text)."""
    return (
        mode is FetchMode.HYBRID
        or hint is not None
        or derived is not None
        or reranks(cfg)
        or models(mode, cfg)
    )


def reranks(cfg: RetrievalConfig) -> bool:
    """Whether the coverage reranker runs (it needs each candidate's text)."""
    return cfg.rerank.coverage and cfg.rerank.strength > 0


def models(mode: FetchMode, cfg: RetrievalConfig) -> bool:
    """Whether the feature reranker runs for `mode` (on when configured and the mode has weights)."""
    return cfg.rerank.model and model_for(mode.value) is not None


def light_detail(mode: FetchMode, cfg: RetrievalConfig) -> bool:
    """Whether the light columns must include the detailed ones (text, source, thread, neighbours)."""
    return reranks(cfg) or models(mode, cfg)


def wants_anchor(query: str | QueryAnalysis, hint: TimeHint | None, cfg: RetrievalConfig) -> bool:
    """Whether a derived time hint is possible, so the engine should look up the reach's newest time."""
    return hint is None and cfg.temporal.query_hints and cfg.temporal.boost > 0 and names_time(query)


def derived_hint(
    query: str | QueryAnalysis, anchor: datetime | None, cfg: RetrievalConfig
) -> TimeHint | None:
    """A TimeHint read from the query's own time expressions, relative to `anchor` (the newest memory
    the read sees; now when it sees none). None when the query names no time."""
    if not cfg.temporal.query_hints or cfg.temporal.boost <= 0 or not names_time(query):
        return None
    return hint_from_query(query.text if isinstance(query, QueryAnalysis) else query, anchor or utcnow())


def window_filter(flt: MetaFilter, hint: TimeHint) -> MetaFilter:
    """`flt` narrowed to memory observed inside the hint's days (the `window` stage's extra reads): a
    narrower read of the same reach, so it sees nothing the fetch could not."""
    after, before = flt.observed_after, flt.observed_before
    if hint.start > FAR_PAST:  # an open side ("before May") leaves that bound as the filter has it
        after = hint.start if after is None else max(after, hint.start)
    if hint.end < FAR_FUTURE:
        before = hint.end if before is None else min(before, hint.end)
    return replace(flt, observed_after=after, observed_before=before)


def merged(ranked: Ranked, more: Ranked) -> Ranked:
    """One ranker's list with the rows of its windowed read added, still best first (a row in both has
    the same score in both; ties keep the first list's rows first)."""
    seen = {r for r, _ in ranked}
    extra = [kv for kv in more if kv[0] not in seen]
    if not extra:
        return ranked
    return sorted([*ranked, *extra], key=lambda kv: -kv[1])


def in_hint(lt: Light, hint: TimeHint) -> bool:
    span = span_of(
        None if lt.event_from is None else from_us(lt.event_from),
        None if lt.event_to is None else from_us(lt.event_to),
        from_us(lt.observed_at),
    )
    return span is not None and span_matches(span[0], span[1], hint)


def dated_within(lt: Light, hint: TimeHint) -> bool:
    """Whether the memory's own event range (not its observed time) lies inside the hint's days."""
    if lt.event_from is None:
        return False
    last = lt.event_from if lt.event_to is None else lt.event_to
    return to_us(hint.start) <= lt.event_from and last < to_us(hint.end)


def apply_hint(ranked: Ranked, light: Mapping[int, Light], hint: TimeHint | None) -> Ranked:
    """Stable partition: rows about the hinted days first; nothing dropped."""
    if hint is None:
        return ranked
    return partition_by_hint(ranked, hint, lambda r: r[0] in light and in_hint(light[r[0]], hint))


def fuse(lex: Ranked, sem: Ranked, light: Mapping[int, Light], cfg: RetrievalConfig) -> Ranked:
    """Hybrid: the configured fusion of the two lists, times the confidence prior."""
    strength = cfg.priors.confidence_strength
    priors = (
        {rowid: confidence_prior(light[rowid].confidence, strength=strength) for rowid in light}
        if strength > 0
        else None
    )
    w = cfg.fusion.lexical_weight
    if cfg.fusion.method == "convex":
        fused = convex([lex, sem], [w, 1.0 - w], priors=priors)
    else:
        fused = rrf(
            [[r for r, _ in lex], [r for r, _ in sem]],
            k=cfg.fusion.rrf_k,
            weights=[w, 1.0 - w],
            priors=priors,
        )
    return [(int(r), s) for r, s in fused]


def term_weights(terms: list[str], stats: ScopeStats) -> dict[str, float]:
    """idf of each query term over the read's reach (row counts over every field)."""
    return {t: idf(stats.df.get(t, 0), stats.docs) for t in terms}


def rank(
    mode: FetchMode,
    lex: Ranked,
    sem: Ranked,
    light: Mapping[int, Light],
    *,
    stats: ScopeStats,
    cfg: RetrievalConfig,
    query: str | QueryAnalysis = "",
    analyzer: Analyzer | None = None,
    hint: TimeHint | None = None,
    derived: TimeHint | None = None,
    trace: Trace | None = None,
) -> Ranked:
    """The final order: one list or their fusion, the coverage reranker, a derived time boost, then an
    explicit hint's partition. `stats` are the read's own reach's (the reranker weighs terms by them);
    `light` holds every candidate when `needs_light` says so. `query` may come analysed (the core
    analyses it once per fetch); a bare string is analysed here, with `analyzer`. A `trace` records
    what each stage gave each candidate (explain.py); the order is the same with or without one."""
    q = analysed(query, analyzer) if analyzer is not None else None
    # a question of stop words only ("what do you know about me?") gets the newest memories, as is
    if models(mode, cfg) and q is not None and analyzer is not None and (lex or sem) and q.content:
        # it replaces fusion; the days asked about are the explicit hint's, else the query's own
        ranked = _model_rerank(mode, lex, sem, light, stats, cfg, q, analyzer, trace, hint or derived)
    elif mode is FetchMode.HYBRID:
        ranked = fuse(lex, sem, light, cfg)
        if trace is not None:
            trace.fused = dict(ranked)
    else:
        ranked = lex if mode is FetchMode.LEXICAL else sem
    if reranks(cfg) and q is not None and analyzer is not None and ranked:
        ranked = _rerank(ranked, light, stats, cfg, q, analyzer)
        if trace is not None:
            trace.coverage = dict(ranked)
    if derived is not None and hint is None:
        hinted = derived

        def inside(r: int) -> bool:
            return r in light and in_hint(light[r], hinted)

        if trace is not None and cfg.temporal.boost > 0:
            trace.timed = {r for r, _ in ranked if inside(r)}
            trace.time, trace.boost = "boosted", 1.0 + cfg.temporal.boost
        ranked = boost_by_hint(ranked, inside, cfg.temporal.boost)
        text = query.text if isinstance(query, QueryAnalysis) else query
        if cfg.temporal.day_first and names_one_day(text):
            ranked = lift(ranked, lambda r: r in light and dated_within(light[r], hinted))
    if trace is not None and hint is not None:
        explicit = hint
        trace.timed = {r for r, _ in ranked if r in light and in_hint(light[r], explicit)}
        trace.time = "first"
    return apply_hint(ranked, light, hint)


def _rerank(
    ranked: Ranked,
    light: Mapping[int, Light],
    stats: ScopeStats,
    cfg: RetrievalConfig,
    query: QueryAnalysis,
    analyzer: Analyzer,
) -> Ranked:
    terms = list(query.terms)
    weights = term_weights(terms, stats)
    cache: dict[int, set[str]] = {}

    def terms_of(rowid: int) -> set[str]:
        if rowid not in cache:
            text = light[rowid].text if rowid in light else None
            cache[rowid] = set(analyzer.index_terms(text or ""))
        return cache[rowid]

    return rerank_by_coverage(ranked, terms, terms_of, weights, cfg.rerank.strength)


def features_of(
    lex: Ranked,
    sem: Ranked,
    light: Mapping[int, Light],
    stats: ScopeStats,
    query: str | QueryAnalysis,
    analyzer: Analyzer,
    window: TimeHint | None = None,
) -> tuple[list[int], npt.NDArray[np.float64]]:
    """The pooled keys and their reranker features (a row per key, features.FEATURES order), from the
    read's own candidates, their detailed light columns and the reach's statistics; `window` is the
    days the question is about (its explicit hint, else the one its words give), if any."""
    q = analysed(query, analyzer)
    terms = list(q.terms)
    candidates: dict[int, Candidate] = {}
    terms_of: dict[int, frozenset[str]] = {}
    for rowid, lt in light.items():
        text = lt.text or ""
        thread = (lt.ns or "", lt.thread) if lt.thread is not None else None
        event = own_event(lt.event_from, lt.event_to)
        candidates[rowid] = Candidate(text, lt.source, thread, lt.before, lt.after, lt.extra, event)
        terms_of[rowid] = term_set(analyzer, text)
    return feature_columns(
        lex,
        sem,
        candidates,
        query=q.text,
        query_terms=terms,
        term_weights=term_weights(terms, stats),
        terms_of=terms_of,
        window=None if window is None else (to_us(window.start), to_us(window.end)),
    )


def _model_rerank(
    mode: FetchMode,
    lex: Ranked,
    sem: Ranked,
    light: Mapping[int, Light],
    stats: ScopeStats,
    cfg: RetrievalConfig,
    query: QueryAnalysis,
    analyzer: Analyzer,
    trace: Trace | None = None,
    window: TimeHint | None = None,
) -> Ranked:
    """The pool re-scored by the feature reranker, times the confidence prior (in place of hybrid's
    fusion, which applies the prior too, so switching the model off keeps it)."""
    fitted = model_for(mode.value)
    assert fitted is not None
    bias, weights = fitted
    off: set[str] = set()
    if not cfg.rerank.speaker:
        off.add("speaker")
    if not cfg.rerank.neighbours:
        off |= {"neighbour", "thread_best", "thread_count"}
    if not cfg.rerank.dated:
        off.add("dated")
    keys, rows = features_of(lex, sem, light, stats, query, analyzer, window)
    strength = cfg.priors.confidence_strength
    scored = []
    for key, relevance in zip(keys, relevances(rows, bias, linear(weights, frozenset(off))), strict=True):
        prior = confidence_prior(light[key].confidence, strength=strength) if key in light else 1.0
        scored.append((key, relevance * prior))
        if trace is not None:
            trace.relevance[key], trace.prior[key] = relevance, prior
    if trace is not None:
        trace.names, trace.rows = FEATURES, rows
        trace.row_of = {key: i for i, key in enumerate(keys)}
    return sorted(scored, key=lambda kv: -kv[1])  # stable: ties keep the pool's order


def merge_reads(reads: Sequence[Sequence[tuple[K, float]]]) -> list[tuple[K, float]]:
    """The `decompose` stage's one order from a question's read and its parts' reads (each best first,
    scores of the same scale): every key at its best score in any read, ties in the order the keys
    first appear (the whole question's read first), so a part's best memory joins the top beside the
    whole question's instead of below all of it."""
    best: dict[K, float] = {}
    for read in reads:
        for key, score in read:
            if key not in best or score > best[key]:
                best[key] = score
    order = {key: i for i, key in enumerate(best)}
    return sorted(best.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def page(ranked: Ranked, offset: int, limit: int) -> tuple[Ranked, bool]:
    """One page of the final order and whether more follow."""
    return ranked[offset : offset + limit], len(ranked) > offset + limit


class FetchRanking:
    """One fetch's ranking, handed the candidates once (what engines.storage.Ranking promises): it
    says which extra inputs its stages read, the reach's newest time only when the query names a time,
    the reach's statistics only when a reranker weighs terms and the light columns only when a stage
    reads them, then ranks and cuts the page. The query's time
    reading is done once per fetch, however often storage asks."""

    __slots__ = (
        "_derived",
        "_inputs",
        "_ranked",
        "_terms",
        "_trace",
        "analysis",
        "analyzer",
        "cfg",
        "explain",
        "hint",
        "limit",
        "mode",
        "offset",
        "query",
        "wants_anchor",
        "wants_stats",
        "why",
    )

    def __init__(
        self,
        mode: FetchMode,
        query: str | QueryAnalysis,
        hint: TimeHint | None,
        offset: int,
        limit: int,
        cfg: RetrievalConfig,
        analyzer: Analyzer,
        explain: bool = False,
    ) -> None:
        self.explain = explain
        # with `explain`, `page` leaves each row's signals here, by row key (engines.storage.page_hits)
        self.why: dict[int, Why] | None = None
        self.analysis = analysed(query, analyzer)
        self.mode, self.query, self.hint, self.offset, self.limit = (
            mode,
            self.analysis.text,
            hint,
            offset,
            limit,
        )
        self.cfg, self.analyzer = cfg, analyzer
        self.wants_anchor: bool = wants_anchor(self.analysis, hint, cfg)
        # the rerankers weigh query terms by the reach's statistics; fusion and time read none
        self.wants_stats: bool = reranks(cfg) or models(mode, cfg)
        self._derived: dict[datetime | None, TimeHint | None] = {}
        self._ranked: Ranked | None = None
        self._inputs: tuple[object, ...] = ()
        self._trace: Trace | None = None
        self._terms: dict[str, float] = {}

    def derived(self, anchor: datetime | None) -> TimeHint | None:
        """The time hint the query's own words give, relative to `anchor` (read once per anchor)."""
        if not self.wants_anchor:
            return None
        if anchor not in self._derived:
            self._derived[anchor] = hint_from_query(self.query, anchor or utcnow())
        return self._derived[anchor]

    def window(self, flt: MetaFilter, anchor: datetime | None) -> MetaFilter | None:
        """The filter of the `window` stage's extra reads (each ranker again, inside the days the query
        names), or None: the stage is off, the fetch has an explicit hint, or the query names no days."""
        if not self.cfg.temporal.window or self.hint is not None:
            return None
        derived = self.derived(anchor)
        return None if derived is None else window_filter(flt, derived)

    def light_detail(self, anchor: datetime | None) -> bool | None:
        if not needs_light(self.mode, self.hint, self.derived(anchor), self.cfg):
            return None
        return light_detail(self.mode, self.cfg)

    def _rank(
        self,
        lexical: Ranked,
        semantic: Ranked,
        light: dict[int, Light],
        stats: ScopeStats,
        anchor: datetime | None,
    ) -> Ranked:
        """The final order before links, ranked once for the same candidates (`link_terms`, then `page`);
        storage that reads again (a read retried on another thread) hands new ones, ranked anew."""
        inputs = (lexical, semantic, light, stats, anchor)
        if (
            self._ranked is None
            or len(inputs) != len(self._inputs)
            or any(a is not b for a, b in zip(inputs, self._inputs, strict=True))
        ):
            self._inputs = inputs
            self._trace = Trace() if self.explain else None
            self._ranked = rank(
                self.mode,
                lexical,
                semantic,
                light,
                stats=stats,
                cfg=self.cfg,
                query=self.analysis,
                analyzer=self.analyzer,
                hint=self.hint,
                derived=self.derived(anchor),
                trace=self._trace,
            )
        return self._ranked

    def link_terms(
        self,
        lexical: Ranked,
        semantic: Ranked,
        light: dict[int, Light],
        stats: ScopeStats,
        anchor: datetime | None,
    ) -> tuple[str, ...]:
        """The `links` stage's terms (names the best memories mention, analysed) whose holders storage
        looks up in the read's reach; empty when the stage does not act (it is off, the read is not
        hybrid, or no detailed light columns were loaded). Only turns of a thread link."""
        links = self.cfg.links
        if not links.enabled or self.mode is not FetchMode.HYBRID or links.top == 0:
            return ()
        order = self._rank(lexical, semantic, light, stats, anchor)
        # a conversation's turns link: on learnings and documents (no thread) it cost R@5 (docs/architecture)
        texts = {
            key: light[key].text
            for key, _ in order[: links.top]
            if key in light and light[key].thread is not None
        }
        self._terms = link_terms(order, texts, self.analysis.terms, self.analyzer, links.top)
        return tuple(self._terms)

    @property
    def link_rows(self) -> int:
        """How many rows storage reads for each rare term: one more than a linking term may have."""
        return self.cfg.links.most + 1

    def rare(self, terms: Sequence[str], stats: ScopeStats) -> list[str]:
        """Of `link_terms`, those storage reads the holders of: the reach's statistics (`stats` of the
        terms) count a row whose neighbouring turn holds a term too (the `context` field), so a term
        held by `links.most` memories counts in at most three times as many rows; the read itself (own
        text only) gives the exact holders, which `linked` checks."""
        return [t for t in terms if 2 <= stats.df.get(t, 0) <= 3 * self.cfg.links.most]

    def page(
        self,
        lexical: Ranked,
        semantic: Ranked,
        light: dict[int, Light],
        stats: ScopeStats,
        anchor: datetime | None,
        holding: Mapping[str, Sequence[int]] | None = None,
    ) -> tuple[Ranked, bool]:
        """The page of the final order; `holding` is storage's answer to `link_terms` (each term's rows)."""
        ranked = self._rank(lexical, semantic, light, stats, anchor)
        if holding:
            ranked = linked(ranked, self._terms, holding, self.cfg.links.most, self.cfg.links.weight)
        cut = page(ranked, self.offset, self.limit)
        if self._trace is not None:
            self.why = signals(cut[0], self.offset, lexical, semantic, self._trace)
        return cut
