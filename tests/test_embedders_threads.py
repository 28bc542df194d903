"""One BLAS thread for small inputs: the limit applies inside the block, is shared, and is restored."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tinymemory.retrieval.embedders import BLAS, BlasLimiter, MiniLMEmbedder, minilm_available
from tinymemory.retrieval.embedders.blas_threads import is_small


@pytest.fixture
def limiter() -> BlasLimiter:
    lim = BlasLimiter()
    if not lim.blas_threads():
        pytest.skip("no BLAS library found by threadpoolctl")
    return lim


def test_block_runs_on_one_thread_and_restores(limiter: BlasLimiter) -> None:
    before = limiter.blas_threads()
    with limiter.one_thread():
        assert limiter.blas_threads() == [1] * len(before)
        assert limiter.depth == 1
        np.ones((64, 64), dtype=np.float32) @ np.ones((64, 64), dtype=np.float32)
    assert limiter.blas_threads() == before and limiter.depth == 0
    assert limiter.entered == 1


def test_nested_blocks_restore_only_at_the_outermost(limiter: BlasLimiter) -> None:
    before = limiter.blas_threads()
    with limiter.one_thread():
        with limiter.one_thread():
            assert limiter.depth == 2
        assert limiter.blas_threads() == [1] * len(before)
    assert limiter.blas_threads() == before


def test_restored_after_an_error(limiter: BlasLimiter) -> None:
    before = limiter.blas_threads()
    with pytest.raises(RuntimeError, match="boom"), limiter.one_thread():
        raise RuntimeError("boom")
    assert limiter.blas_threads() == before and limiter.depth == 0


def test_overlapping_threads_share_the_limit(limiter: BlasLimiter) -> None:
    """Two threads enter and leave in crossed order; the original size comes back only after both."""
    before = limiter.blas_threads()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, list[int]] = {}

    def a() -> None:
        with limiter.one_thread():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b() -> None:
        a_in.wait(5)
        with limiter.one_thread():
            b_in.set()
            a_out.wait(5)
            seen["b after a left"] = limiter.blas_threads()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen["b after a left"] == [1] * len(before)
    assert limiter.blas_threads() == before and limiter.depth == 0


def test_small_means_at_most_the_token_budget() -> None:
    assert is_small(10) and is_small(1024) and not is_small(1025)
    assert not is_small(1, 0)  # a budget of 0 turns the rule off


@pytest.mark.skipif(not minilm_available(), reason="minilm weights package is not installed")
def test_minilm_limits_small_calls_only() -> None:
    if not BLAS.blas_threads():
        pytest.skip("no BLAS library found by threadpoolctl")
    emb = MiniLMEmbedder(one_thread_tokens=64, query_cache_size=0)
    start = BLAS.entered
    emb.embed(["a short query"])
    assert BLAS.entered == start + 1
    emb.embed(["a longer text " * 30])  # about 90 tokens: over the 64-token budget
    assert BLAS.entered == start + 1
    MiniLMEmbedder(one_thread_tokens=0).embed(["a short query"])
    assert BLAS.entered == start + 1
