"""What the local embedders share, so each one only says how it loads and how it turns ids into vectors.

`LocalEmbedder`: weights loaded once on first use (`Lazy`), a cache of query vectors, and `embed`'s
argument checks. `TransformerEmbedder` adds the forward-pass machinery of MiniLM and MPNet: texts are
tokenised together, sorted by length and run in batches padded only to their own longest text, so short
texts do not pay for a long neighbour's padding; small calls run on one BLAS thread (blas_threads.py).
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

import numpy as np

from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.blas_threads import BLAS, SMALL_INPUT_TOKENS, is_small
from tinymemory.retrieval.embedders.lazy import Lazy
from tinymemory.retrieval.embedders.query_cache import QueryCache

if TYPE_CHECKING:  # the forward pass and the tokenizer load with a model, not when this module does
    from tokenizers import Tokenizer

    from tinymemory.retrieval.embedders.bert_numpy import F32, I64

DEFAULT_BATCH_SIZE = 32

L = TypeVar("L")
W = TypeVar("W")


class LocalEmbedder(ABC, Generic[L]):
    """An embedder whose model (of type `L`) loads on first use, once, under a lock; constructing is cheap."""

    def __init__(self, query_cache_size: int) -> None:
        self._queries = QueryCache(query_cache_size)
        self._state = Lazy(self._load)

    @property
    @abstractmethod
    def name(self) -> str: ...

    @property
    @abstractmethod
    def dim(self) -> int: ...

    @property
    def query_cache(self) -> QueryCache:
        """The LRU of recent query vectors: agents ask the same query again within a turn and across tools."""
        return self._queries

    @property
    def loaded(self) -> bool:
        """Whether the model has been read yet (it loads on first use)."""
        return self._state.ready

    def load(self) -> None:
        """Load the model now (otherwise the first embed does it)."""
        self._ensure_loaded()

    def _ensure_loaded(self) -> L:
        return self._state.get()

    @abstractmethod
    def _load(self) -> L:
        """Read the model; raises Unavailable when its files are missing or do not fit."""

    @abstractmethod
    def _embed_into(self, out: Vectors, loaded: L, texts: Sequence[str]) -> None:
        """Write the vector of `texts[i]` into `out[i]` (`texts` is not empty)."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents: shape (len(texts), dim), rows L2-normalised; an empty input gives an empty
        array. Loads the model on first use."""
        if isinstance(texts, str):
            raise TypeError("embed: `texts` must be a sequence of strings, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        self._embed_into(out, self._ensure_loaded(), texts)
        return out

    def embed_query(self, text: str) -> Vectors:
        """Embed one query (shape (dim,), L2-normalised), served from the query cache when it was asked
        recently."""
        cached = self._queries.get(text)
        if cached is not None:
            return cached
        return self._queries.put(text, self.embed([text])[0])


@dataclass(frozen=True)
class Loaded(Generic[W]):
    tokenizer: Tokenizer
    weights: W


def max_seq_length(model_dir: Path, default: int) -> int:
    """sentence-transformers' truncation length (`sentence_bert_config.json`), else `default`."""
    path = model_dir / "sentence_bert_config.json"
    if path.is_file():
        value = json.loads(path.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(value, int) and value > 0:
            return value
    return default


def load_tokenizer(model_dir: Path, max_tokens: int) -> Tokenizer:
    """The model's `tokenizer.json`, unpadded (batches are padded here) and truncated at `max_tokens`."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens)
    return tokenizer


class TransformerEmbedder(LocalEmbedder[Loaded[W]]):
    """A sentence encoder run by a numpy forward pass over length-sorted, right-padded batches.

    Subclasses give `name`, `dim`, `label` (the model's word in error messages), `padding_id`, `_load`
    (tokenizer and weights of type `W`) and `_encode_batch` (one padded batch to normalised vectors).
    `model_dir` is where the subclass looks first; `batch_size` texts run per forward pass.
    """

    label: ClassVar[str]
    padding_id: ClassVar[int] = 0

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        query_cache_size: int = 256,
        one_thread_tokens: int = SMALL_INPUT_TOKENS,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"{self.label} embedder: `batch_size` must be >= 1")
        super().__init__(query_cache_size)
        self._explicit_dir = model_dir
        self._batch_size = batch_size
        # Calls of at most this many tokens run on one BLAS thread (0 turns that off): blas_threads.py.
        self._one_thread_tokens = one_thread_tokens

    @abstractmethod
    def _encode_batch(self, weights: W, ids: I64, lengths: list[int]) -> F32:
        """Right-padded ids (batch, seq) and each row's real length -> L2-normalised vectors (batch, dim)."""

    def _embed_into(self, out: Vectors, loaded: Loaded[W], texts: Sequence[str]) -> None:
        encodings = loaded.tokenizer.encode_batch(list(texts), add_special_tokens=True)
        ids_list = [e.ids for e in encodings]
        if is_small(sum(len(ids) for ids in ids_list), self._one_thread_tokens):
            with BLAS.one_thread():
                self._encode_sorted(out, loaded.weights, ids_list)
        else:
            self._encode_sorted(out, loaded.weights, ids_list)

    def _encode_sorted(self, out: Vectors, weights: W, ids_list: list[list[int]]) -> None:
        order = sorted(range(len(ids_list)), key=lambda i: len(ids_list[i]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            lengths = [len(ids_list[i]) for i in chunk]
            ids = np.full((len(chunk), max(lengths)), self.padding_id, dtype=np.int64)
            for row, i in enumerate(chunk):
                ids[row, : lengths[row]] = ids_list[i]
            out[chunk] = self._encode_batch(weights, ids, lengths)
