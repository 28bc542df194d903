"""Reciprocal rank fusion and the confidence prior."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.retrieval.fusion import confidence_prior, rrf


def test_agreement_beats_a_single_list() -> None:
    fused = rrf([["a", "b", "c"], ["b", "d"]])
    assert [k for k, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] < 1.0


def test_first_everywhere_scores_one() -> None:
    assert rrf([["x"], ["x"]]) == [("x", pytest.approx(1.0))]


def test_weights_and_priors_shift_the_order() -> None:
    assert rrf([["a"], ["b"]], weights=[1.0, 2.0])[0][0] == "b"
    assert rrf([["a"], ["b"]], priors={"a": 0.5})[0][0] == "b"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="weights"):
        rrf([["a"]], weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="k"):
        rrf([["a"]], k=0)


def test_confidence_prior_is_small_and_bounded() -> None:
    assert confidence_prior(1.0) == 1.0
    assert confidence_prior(0.0) == pytest.approx(0.95)
    assert confidence_prior(None) == confidence_prior(0.8)
    assert confidence_prior(7.0) == 1.0


rankings = st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), min_size=1, max_size=3)


@given(rankings)
def test_scores_are_in_unit_range_and_sorted(lists: list[list[str]]) -> None:
    fused = rrf(lists)
    scores = [s for _, s in fused]
    assert all(0.0 < s <= 1.0 + 1e-9 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert {k for k, _ in fused} == {k for lst in lists for k in lst}
    assert rrf(lists) == fused  # deterministic
