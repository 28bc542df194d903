"""RetrievalConfig, convex fusion, the coverage reranker, the derived-hint boost and the analyzer options."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.retrieval.config import STAGES, AnalyzerConfig, FusionConfig, RetrievalConfig
from tinymemory.retrieval.fusion import convex, minmax
from tinymemory.retrieval.rerank import coverage, rerank_by_coverage
from tinymemory.retrieval.temporal import boost_by_hint
from tinymemory.retrieval.text import analyzer_for, default_analyzer


def test_each_stage_switches_off_alone() -> None:
    base = RetrievalConfig()
    for stage in STAGES:
        off = base.without(stage)
        fields = ("analyzer", "context", "fusion", "temporal", "rerank", "priors", "decompose", "links")
        changed = [f for f in fields if getattr(off, f) != getattr(base, f)]
        # speaker and neighbours are switches of the reranker's features, window one of the time stage
        group = {"speaker": "rerank", "neighbours": "rerank", "dated": "rerank", "window": "temporal"}
        assert changed == [group.get(stage, stage)], stage
    off = base.all_off()
    assert off.fusion.method == "rrf" and not off.context.enabled and not off.temporal.query_hints
    assert not off.temporal.window and base.temporal.window
    assert not off.decompose.enabled and base.decompose.enabled
    assert not off.links.enabled and base.links.enabled
    with pytest.raises(ValueError, match="stage"):
        base.without("magic")


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match=r"fusion\.lexical_weight"):
        RetrievalConfig(fusion=FusionConfig(lexical_weight=1.5))
    with pytest.raises(ValueError, match=r"fusion\.method"):
        RetrievalConfig(fusion=FusionConfig(method="max"))  # type: ignore[arg-type]


def test_convex_keeps_score_gaps_that_rank_fusion_loses() -> None:
    lex = [("a", 0.9), ("b", 0.1), ("c", 0.05)]
    sem = [("b", 0.50), ("a", 0.49), ("c", 0.1)]
    fused = convex([lex, sem], [0.5, 0.5])
    assert fused[0][0] == "a"  # lexical is sure; semantic barely prefers b
    assert fused[0][1] == pytest.approx(0.5 + 0.5 * (0.39 / 0.40))


@given(st.lists(st.tuples(st.text(max_size=3), st.floats(-1e6, 1e6)), max_size=20))
def test_minmax_is_within_unit_interval(scored: list[tuple[str, float]]) -> None:
    for value in minmax(scored).values():
        assert 0.0 <= value <= 1.0


def test_coverage_rewards_holding_every_term() -> None:
    weights = {"adopt": 2.0, "agency": 1.0}
    assert coverage(["adopt", "agency"], {"adopt"}, weights) == pytest.approx(2 / 3)
    ranked = rerank_by_coverage(
        [("repeats", 1.0), ("holds_all", 0.9)],
        ["adopt", "agency"],
        lambda k: {"adopt"} if k == "repeats" else {"adopt", "agency"},
        weights,
        0.5,
    )
    assert [k for k, _ in ranked] == ["holds_all", "repeats"]


def test_a_derived_hint_tilts_but_never_drops() -> None:
    ranked = [("a", 1.0), ("b", 0.9), ("c", 0.1)]
    boosted = boost_by_hint(ranked, lambda k: k in {"b", "c"}, 0.25)
    assert [k for k, _ in boosted] == ["b", "a", "c"]
    assert boost_by_hint(ranked, lambda k: True, 0.0) == ranked


def test_the_analyzer_options() -> None:
    assert analyzer_for(AnalyzerConfig()) is default_analyzer()
    plain = analyzer_for(AnalyzerConfig(stem=False, stop_words=False))
    assert plain.index_terms("The servers were running") == ["the", "servers", "were", "running"]
    assert default_analyzer().index_terms("The servers were running") == ["server", "run"]


@given(st.text(max_size=80))
def test_plain_analysis_keeps_every_token(text: str) -> None:
    plain = analyzer_for(AnalyzerConfig(stem=False, stop_words=False))
    stemmed = default_analyzer()
    assert len(plain.index_terms(text)) >= len(stemmed.index_terms(text))


def test_bm25_scores_each_posting_in_order_however_the_rows_come() -> None:
    """The rows a ranker hands over in row order (a scoped read's) and the same rows shuffled score the
    same, float for float, as the formula posting by posting (each row's terms summed in order)."""
    import random

    from tinymemory.retrieval.bm25 import K1, B, bm25, term_idf

    rng = random.Random(3)
    for _ in range(200):
        df = {t: rng.randint(1, 40) for t in ("a", "b", "c")}
        docs, tokens = 50, rng.randint(100, 900)
        rows = sorted(
            (rng.randint(1, 30), rng.choice("abcd"), rng.choice([1.0, 2.5, 0.3]), rng.randint(1, 40))
            for _ in range(rng.randint(1, 60))
        )
        avgdl = tokens / docs
        want: dict[int, float] = {}
        for rowid, term, f, length in rows:
            idf = term_idf(docs, df.get(term, 0))
            part = idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * length / avgdl)))  # FTS5's order
            want[rowid] = want.get(rowid, 0.0) + part
        for handed in (rows, rng.sample(rows, len(rows))):
            ids, scores = bm25(handed, docs, tokens, df)
            order = sorted(
                range(len(handed)), key=lambda i: handed[i][0]
            )  # each row's postings in order given
            expect: dict[int, float] = {}
            for i in order:
                rowid, term, f, length = handed[i]
                idf = term_idf(docs, df.get(term, 0))
                part = idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * length / avgdl)))  # FTS5's order
                expect[rowid] = expect.get(rowid, 0.0) + part
            assert ids.tolist() == sorted(expect) and scores.tolist() == [expect[r] for r in sorted(expect)]
        assert bm25(rows, docs, tokens, df)[1].tolist() == [want[r] for r in sorted(want)]
