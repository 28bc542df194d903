"""The shared ranking pipeline: pure stages from scoped candidates to a page, and what it asks for."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from tinymemory.api.filters import FetchMode, TimeHint
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.config import DEFAULT_CONFIG, FusionConfig, RerankConfig, RetrievalConfig
from tinymemory.retrieval.pipeline import FetchPlan, Light, ScopeStats
from tinymemory.retrieval.text import default_analyzer

STATS = ScopeStats(docs=10, tokens=100, df={"paint": 2, "lake": 5})


def us(day: int) -> int:
    return int(datetime(2024, 5, day, 12, tzinfo=UTC).timestamp() * 1_000_000)


def test_plan_pools_only_when_a_stage_reorders() -> None:
    plain = FetchPlan.make(FetchMode.SEMANTIC, "paint", 10, None, DEFAULT_CONFIG)
    assert (plain.pooled, plain.pool, plain.want) == (False, 0, 11)
    unranked = FetchPlan.make(FetchMode.LEXICAL, "paint", 10, None, DEFAULT_CONFIG.without("rerank"))
    assert (unranked.pooled, unranked.want) == (False, 11)
    reranked = FetchPlan.make(FetchMode.LEXICAL, "paint", 10, None, DEFAULT_CONFIG)
    assert (reranked.pooled, reranked.pool, reranked.want) == (True, 50, 50)
    hybrid = FetchPlan.make(FetchMode.HYBRID, "paint", 10, None, DEFAULT_CONFIG)
    assert (hybrid.pooled, hybrid.pool, hybrid.want) == (True, 50, 50)
    assert hybrid.postings_budget() < plain.postings_budget()
    timed = FetchPlan.make(FetchMode.SEMANTIC, "what did I paint yesterday", 40, None, DEFAULT_CONFIG)
    assert (timed.pooled, timed.pool) == (True, 120)
    later = FetchPlan.make(
        FetchMode.HYBRID, "paint", 10, None, DEFAULT_CONFIG, cursor_pool=50, cursor_offset=10
    )
    assert (later.pool, later.offset, later.want) == (50, 10, 50)


def test_prune_drops_common_terms_first_and_keeps_the_rarest() -> None:
    df = {"a": 9_000, "b": 900, "c": 9}
    assert pipeline.prune(["a", "b", "c"], df, 10_000) == ["a", "b", "c"]
    assert pipeline.prune(["a", "b", "c"], df, 1_000) == ["b", "c"]
    assert pipeline.prune(["a", "b", "c"], df, 1) == ["c"]
    assert pipeline.prune(["a"], df, 1) == ["a"]


def test_scores_map_into_the_unit_interval() -> None:
    assert pipeline.unit_score(-3.0) == 0.0
    assert 0.0 < pipeline.unit_score(2.0) < 1.0
    assert pipeline.unit_cosine(1.3) == 1.0 and pipeline.unit_cosine(-0.2) == 0.0


def test_hybrid_fuses_both_lists() -> None:
    cfg = replace(DEFAULT_CONFIG, fusion=FusionConfig(method="rrf"))
    light = {
        1: Light(None, us(1), None, None),
        2: Light(None, us(2), None, None),
        3: Light(None, us(3), None, None),
    }
    ranked = pipeline.rank(
        FetchMode.HYBRID, [(1, 0.9), (2, 0.1)], [(3, 0.9), (2, 0.8)], light, stats=STATS, cfg=cfg
    )
    assert {r for r, _ in ranked} == {1, 2, 3}
    assert ranked[0][0] == 2  # second on both lists beats first on one


def test_explicit_hint_partitions_without_dropping() -> None:
    light = {1: Light(None, us(1), None, None), 2: Light(None, us(8), None, None)}
    hint = TimeHint(datetime(2024, 5, 8, tzinfo=UTC), datetime(2024, 5, 9, tzinfo=UTC))
    ranked = pipeline.rank(
        FetchMode.LEXICAL, [(1, 0.9), (2, 0.2)], [], light, stats=STATS, cfg=DEFAULT_CONFIG, hint=hint
    )
    assert [r for r, _ in ranked] == [2, 1]


def test_coverage_rerank_uses_the_reach_statistics() -> None:
    cfg = replace(DEFAULT_CONFIG, rerank=RerankConfig(coverage=True, strength=1.0))
    light = {
        1: Light(None, us(1), None, None, "a walk by the lake"),
        2: Light(None, us(2), None, None, "I paint the lake at dawn"),
    }
    ranked = pipeline.rank(
        FetchMode.LEXICAL,
        [(1, 0.5), (2, 0.45)],
        [],
        light,
        stats=STATS,
        cfg=cfg,
        query="paint lake",
        analyzer=default_analyzer(),
    )
    assert ranked[0][0] == 2


def test_fetch_ranking_asks_only_for_what_a_stage_reads() -> None:
    """Storage loads the anchor and the light columns only when the ranking says a stage reads them."""
    lex = [(1, 0.5), (2, 0.4)]
    plain = DEFAULT_CONFIG.without("rerank")

    def ranking(query: str, cfg: RetrievalConfig) -> pipeline.FetchRanking:
        return pipeline.FetchRanking(FetchMode.LEXICAL, query, None, 0, 10, cfg, default_analyzer())

    quiet = ranking("paint", plain)
    assert not quiet.wants_anchor and quiet.light_detail(None) is None
    assert quiet.page(lex, [], {}, STATS, None) == (lex, False)
    assert ranking("paint", DEFAULT_CONFIG).light_detail(None) is True  # the reranker reads the detail

    timed = ranking("what did I paint yesterday", plain)
    assert timed.wants_anchor
    anchor = datetime(2024, 5, 9, tzinfo=UTC)
    assert timed.light_detail(anchor) is False  # the time stage reads the times only
    light = {r: Light(None, us(r), None, None) for r in (1, 8)}
    page, more = timed.page([(1, 0.5), (8, 0.45)], [], light, STATS, anchor)
    assert page[0][0] == 8 and not more  # the 8th is "yesterday" relative to the reach's newest time, the 9th


def test_page_says_whether_more_follow() -> None:
    ranked = [(i, 1.0 / i) for i in range(1, 6)]
    assert pipeline.page(ranked, 0, 2) == (ranked[:2], True)
    assert pipeline.page(ranked, 4, 2) == (ranked[4:], False)
