"""An HNSW index (usearch) over the `vectors` table: approximate nearest rows for reads
over many rows, where scoring every row costs more than walking a graph.

Settings (measured by bench/ann.py, docs/benchmarks.md section `ann`, reasons in docs/architecture/ann.md):
connectivity 16, expansion 128 while adding, 512 while searching, float16 in the graph, and every row
stored minus half the mean of the first rows indexed (`CENTRE`). The shift is what makes recall high:
text embeddings share a large common direction that short questions lack, so a question lies outside the
cone of the stored rows and a graph built on them walks badly towards it (recall@10 0.75 at expansion
256 on 100,000 real embeddings). Subtracting one fixed vector `c` from every row leaves each query's
ranking unchanged (q.(x - c) = q.x - q.c, the same shift for every row) but spreads the rows, so the
graph fits queries (recall@10 0.96 at 256, 0.98 at 512). Scores are given back as q.x.

Rows are keyed by `items.rowid`, which only grows, so catching up with this or another process's writes
is one range read past the largest key indexed. `remove` takes rows out and overwrites their slots, so a
purged memory's vector leaves the graph and, at the next `save`, the file. The file is usearch's own
format followed by a footer (settings, the shift vector, checksums); it is written to a temporary file,
flushed to disk and renamed, so a crash leaves the old file or the new one, and `load` refuses a torn or
foreign file (the caller rebuilds).
"""

from __future__ import annotations

import importlib.util
import json
import mmap
import os
import re
import sqlite3
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tinymemory.api.atomic import replacing
from tinymemory.engines.paths import in_memory
from tinymemory.engines.sqlite import vecfile, vectors
from tinymemory.engines.sqlite.vectors import Floats, Ints

# Below this many vectors the exact scan is as fast (bench/ann.py measures the crossover).
ANN_MIN_ROWS = 50_000
# Rows a background build adds per `refresh` call (its progress is reported per chunk).
BUILD_CHUNK = 16_384
# Rows per usearch `add` call while a build may be asked to stop: usearch cannot be interrupted inside
# a call (about 0.25 s for 512 rows on one thread at 100,000 rows), and a process that exits waits for
# the call in flight (see ann_reads.py: a thread torn down inside usearch aborts the process).
ADD_BATCH = 512
DTYPE = "f16"  # f32 measured the same recall at twice the file; i8 measured recall@10 0.67 at 1M
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 512  # a search's expansion unless its read asks for another (ann_reads.py)
# usearch walks max(its index's expansion, the rows asked) candidates, so the index keeps this low one and
# a search at expansion e asks for max(rows wanted, e) rows and keeps the best it wanted: the rows a
# search at e gives (100 queries of 100 at 100,000 rows), with no setting shared by concurrent searches
EXPANSION_FLOOR = 64
CENTRE = 0.5  # share of the first rows' mean subtracted from every row (see the module docstring)
# Keys from here up are placeholders that overwrite removed rows' slots; never returned.
PLACEHOLDER_BASE = 1 << 63
MAGIC = b"TMHNSW01"
FORMAT = 1
_TAIL = struct.Struct("<II8s")  # meta length, crc32 of meta + shift, magic


def available() -> bool:
    """Whether the optional `usearch` package is installed."""
    return importlib.util.find_spec("usearch") is not None


def should_use(rows: int, threshold: int = ANN_MIN_ROWS) -> bool:
    return rows >= threshold and available()


def index_path(db_path: str, embedder: str, dim: int, dtype: str = DTYPE) -> Path | None:
    """`<db>.hnsw-<embedder>-<dim>-<dtype>`, or None for an in-memory database (nothing to persist)."""
    if in_memory(db_path):
        return None
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder)
    return Path(f"{db_path}.hnsw-{safe}-{dim}-{dtype}")


class HnswIndex:
    """Approximate top-k by cosine over unit rows, kept in step with the vectors table."""

    def __init__(
        self,
        db_path: str,
        embedder: str,
        dim: int,
        *,
        dtype: str = DTYPE,
        connectivity: int = CONNECTIVITY,
        expansion_add: int = EXPANSION_ADD,
        expansion_search: int = EXPANSION_SEARCH,
        centre: float = CENTRE,
        threads: int | None = None,
    ) -> None:
        self.embedder, self.dim, self.dtype = embedder, dim, dtype
        self.connectivity, self.expansion_add = connectivity, expansion_add
        self.expansion_search, self.centre = expansion_search, centre
        self.path = index_path(db_path, embedder, dim, dtype)
        # one thread by default: usearch 2.26 can leave rows unreachable when two threads add at once
        self.threads = threads or 1
        self.last_rowid = 0
        self.placeholders = 0  # slots holding a placeholder where a removed row was
        self._next_placeholder = 0
        self._shift: Floats | None = None  # fixed at the first add (or loaded)
        self._index: Any = self._new()
        self.viewed = False  # a read-only memory map of the file; made mutable on the first change
        self._mapped: Path | None = None

    def _new(self) -> Any:
        from usearch.index import Index

        return Index(
            ndim=self.dim,
            metric="ip",
            dtype=self.dtype,
            connectivity=self.connectivity,
            expansion_add=self.expansion_add,
            expansion_search=EXPANSION_FLOOR,
        )

    @property
    def size(self) -> int:
        """Rows in the graph (placeholders not counted)."""
        return len(self._index) - self.placeholders

    @property
    def stale_share(self) -> float:
        """Share of the graph's nodes that are placeholders: past a tenth, a rebuild pays off."""
        total = len(self._index)
        return self.placeholders / total if total else 0.0

    # -- loading ----------------------------------------------------------------------------------

    def load(self, *, view: bool = False, verify: bool = True) -> bool:
        """Replace the graph with the persisted one when it is whole and matches; True if loaded.

        `view` maps the file read-only instead of copying it into memory (pages are read on use and
        shared between processes); the first add or remove then copies it. `verify` checks the
        checksum of the whole file (one read of it); the footer's own checksum and the length are
        always checked. A missing, torn, foreign or mismatched file gives False: rebuild."""
        if self.path is None or not self.path.exists():
            return False
        try:
            meta, shift = _read_footer(self.path)
            if not self._matches(meta):
                return False
            if verify and _crc_file(self.path, int(meta["payload_len"])) != int(meta["payload_crc"]):
                return False
            restored = self._restore(view)
        except (OSError, ValueError, RuntimeError, KeyError, TypeError):
            return False
        if restored is None or len(restored) != int(meta["nodes"]) - int(meta["free"]):
            return False
        restored.expansion_search = EXPANSION_FLOOR
        self._index, self.viewed = restored, view
        self._mapped = self.path if view else None
        self._shift = shift
        self.last_rowid = int(meta["last_rowid"])
        self.placeholders = int(meta["placeholders"])
        self._next_placeholder = int(meta["next_placeholder"])
        return True

    def _matches(self, meta: dict[str, Any]) -> bool:
        return (
            meta.get("format") == FORMAT
            and meta.get("dim") == self.dim
            and meta.get("dtype") == self.dtype
            and meta.get("embedder") == self.embedder
        )

    def _restore(self, view: bool) -> Any:
        from usearch.index import Index

        assert self.path is not None
        info = Index.metadata(str(self.path))
        if info is None or int(info["dimensions"]) != self.dim:
            return None
        return Index.restore(str(self.path), view=view)

    def _mutable(self) -> None:
        """A viewed graph cannot take adds or removals: copy the file into memory first."""
        if self.viewed:
            copied = self._index.copy()  # from the mapping, not the path: the file may be newer
            copied.expansion_search = EXPANSION_FLOOR
            self._index, self.viewed = copied, False

    # -- changes ----------------------------------------------------------------------------------

    def refresh(
        self, conn: sqlite3.Connection, limit: int | None = None, stop: Callable[[], bool] | None = None
    ) -> int:
        """Add the rows of this embedder committed past the largest key indexed, at most `limit` of
        them (a background build adds a chunk at a time); return how many were added.

        With `stop`, rows are added `ADD_BATCH` at a time and `stop()` is asked between batches: once
        it says True, refresh returns early, the graph whole up to `last_rowid`."""
        added = 0
        while limit is None or added < limit:
            chunk = vectors.REFRESH_CHUNK if limit is None else min(vectors.REFRESH_CHUNK, limit - added)
            rows = vectors.rows_after(conn, self.embedder, self.dim, self.last_rowid, chunk)
            if not rows:
                break
            keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            block = vectors.from_blobs([r[1] for r in rows], self.dim)
            step = len(rows) if stop is None else ADD_BATCH
            for at in range(0, len(rows), step):
                if stop is not None and stop():
                    return added
                self.add(keys[at : at + step], block[at : at + step])
                added += len(keys[at : at + step])
            if len(rows) < chunk:
                break
        return added

    def add(self, rowids: Ints, block: Floats) -> None:
        """Index unit rows under their rowids (which must be past `last_rowid`)."""
        if len(rowids) == 0:
            return
        self._mutable()
        block = np.asarray(block, dtype=np.float32)
        if self._shift is None:
            self._shift = self._first_shift(block)
        keys = np.asarray(rowids, dtype=np.uint64)
        self._index.add(keys, block - self._shift, threads=self.threads)
        self.last_rowid = max(self.last_rowid, int(np.max(rowids)))

    def _first_shift(self, block: Floats) -> Floats:
        # rounded to the graph's type, so the shift is exactly representable where it is used
        mean = block.mean(axis=0) * self.centre
        return np.asarray(mean.astype(np.float16) if self.dtype == "f16" else mean, dtype=np.float32)

    def remove(self, rowids: Iterable[int]) -> int:
        """Take rows out of the graph and overwrite their slots; return how many were in it.

        usearch only marks a removed node free and keeps its vector (in memory and in a saved file)
        until the slot is reused, so every free slot is filled at once with a zero placeholder under a
        reserved key. Placeholders are never returned; `stale_share` says when to rebuild."""
        keys = np.unique(np.fromiter((int(r) for r in rowids), dtype=np.int64))
        keys = keys[(keys > 0) & (keys < PLACEHOLDER_BASE)].astype(np.uint64)
        if len(keys) == 0:
            return 0
        self._mutable()
        present = keys[np.asarray(self._index.contains(keys), dtype=bool).reshape(-1)]
        if len(present):
            self._index.remove(present)
        self._fill_free_slots()
        return len(present)

    def _fill_free_slots(self) -> None:
        free = int(self._index.stats.nodes) - len(self._index)
        if free <= 0:
            return
        start = PLACEHOLDER_BASE + self._next_placeholder
        keys = np.arange(start, start + free, dtype=np.uint64)
        self._index.add(keys, np.zeros((free, self.dim), dtype=np.float32), threads=1)
        self._next_placeholder += free
        self.placeholders += free
        if int(self._index.stats.nodes) != len(self._index):  # pragma: no cover - usearch changed
            raise RuntimeError("hnsw: removed rows' slots were not all overwritten")

    def rebuild(self) -> None:
        """A fresh graph of the live rows (placeholders dropped, the shift recomputed)."""
        self._mutable()
        keys = np.asarray(self._index.keys, dtype=np.uint64)
        keys = np.sort(keys[keys < PLACEHOLDER_BASE])
        if len(keys) == 0:
            self.reset()
            return
        stored = np.asarray(self._index.get(keys, dtype=np.float32), dtype=np.float32)
        assert self._shift is not None
        rows = stored + self._shift
        last = self.last_rowid
        self.reset()
        self.add(keys.astype(np.int64), rows)
        self.last_rowid = last

    def reset(self) -> None:
        """Forget the graph in memory (the persisted file stays until the next save)."""
        self._index, self.viewed = self._new(), False
        self._shift = None
        self.last_rowid = self.placeholders = self._next_placeholder = 0

    # -- saving -----------------------------------------------------------------------------------

    def save(self) -> None:
        """Write the graph beside the database: a temporary file, flushed to disk, then renamed over
        the old one (and the directory flushed), so a crash at any point leaves one whole file."""
        if self.path is None:
            return
        if self.viewed and self._mapped == self.path:  # unchanged since it was mapped from this file
            return
        vecfile.drop_orphans(self.path)
        with replacing(
            self.path, prefix=f"{self.path.name}.{os.getpid()}.", suffix=".tmp", sync_dir=True
        ) as tmp:
            self._index.save(str(tmp))
            payload_len = os.path.getsize(tmp)
            meta = {
                "format": FORMAT,
                "embedder": self.embedder,
                "dim": self.dim,
                "dtype": self.dtype,
                "connectivity": self.connectivity,
                "expansion_add": self.expansion_add,
                "centre": self.centre,
                "last_rowid": self.last_rowid,
                "placeholders": self.placeholders,
                "next_placeholder": self._next_placeholder,
                "nodes": int(self._index.stats.nodes),
                "free": int(self._index.stats.nodes) - len(self._index),
                "payload_len": payload_len,
                "payload_crc": _crc_file(tmp, payload_len),
            }
            shift = self._shift if self._shift is not None else np.zeros(self.dim, dtype=np.float32)
            with open(tmp, "ab") as fh:
                fh.write(_footer(meta, shift))
                fh.flush()
                os.fsync(fh.fileno())

    # -- reads ------------------------------------------------------------------------------------

    def set_expansion(self, expansion_search: int) -> None:
        """Candidates kept while searching the graph, for searches that name none: recall against
        latency, no rebuild needed."""
        self.expansion_search = expansion_search

    def first_round(self, query: Floats, k: int, expansion: int | None = None) -> FirstRound:
        """The graph's answer to the first round of `search(query, k, ...)`, computed ahead (on another
        thread, while the lexical side runs: usearch releases the GIL); `search` takes it as given."""
        q = np.asarray(query, dtype=np.float32)
        ask, depth = self._first_ask(k), self._depth(expansion)
        if ask <= 0:
            return FirstRound(self._index, q, ask, depth, None)
        return FirstRound(self._index, q, ask, depth, self._walk(q, ask, depth))

    def _first_ask(self, k: int) -> int:
        return min(k + min(self.placeholders, k), len(self._index))

    def _depth(self, expansion: int | None) -> int:
        return self.expansion_search if expansion is None else expansion

    def _walk(self, q: Floats, ask: int, depth: int) -> tuple[Any, Any]:
        """usearch's best `ask` rows for `q` at expansion `depth` (see EXPANSION_FLOOR): keys and
        distances, best first."""
        found = self._index.search(q, min(max(ask, depth), len(self._index)), threads=1)
        return found.keys[:ask], found.distances[:ask]

    def search(
        self,
        query: Floats,
        k: int,
        max_rowid: int | None = None,
        keep: Callable[[int], bool] | None = None,
        first: FirstRound | None = None,
        expansion: int | None = None,
    ) -> tuple[Ints, Floats]:
        """Up to k (rowid, cosine) best first, ties by rowid, of the rows at or below `max_rowid` that
        `keep` accepts. usearch has no filtered search in Python, so the graph is asked for more rows
        (4x more each time) until k pass or it has no more to give. `first` is the first round asked
        ahead (`first_round`): used when it was asked of this graph, for this query, this many rows and
        this `expansion` (candidates kept while walking; `expansion_search` when None)."""
        if k <= 0 or self.size == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        q = np.asarray(query, dtype=np.float32)
        base = float(q @ self._shift) if self._shift is not None else 0.0
        total = len(self._index)
        ask, depth = self._first_ask(k), self._depth(expansion)
        while True:
            if first is not None and first.answers(self._index, q, ask, depth):
                found = first.found
            else:
                found = self._walk(q, ask, depth)
            first = None
            keys = np.asarray(found[0], dtype=np.uint64)
            scores = (1.0 + base - np.asarray(found[1], dtype=np.float32)).astype(np.float32)
            ok = keys < PLACEHOLDER_BASE
            if max_rowid is not None:
                ok &= keys <= max_rowid
            rowids: Ints = keys[ok].astype(np.int64)
            scores = scores[ok]
            if keep is not None:
                passed = np.fromiter((keep(int(r)) for r in rowids), dtype=bool, count=len(rowids))
                rowids, scores = rowids[passed], scores[passed]
            if len(rowids) >= k or ask >= total or len(keys) < ask:
                break
            ask = min(ask * 4, total)
        order = np.lexsort((rowids, -scores))[:k]
        return rowids[order], scores[order]


@dataclass(frozen=True, slots=True)
class FirstRound:
    """usearch's answer for one query and one number of rows, from one graph object."""

    index: Any
    query: Floats
    ask: int
    expansion: int
    found: Any

    def answers(self, index: Any, query: Floats, ask: int, expansion: int) -> bool:
        return (
            self.found is not None
            and self.index is index
            and self.ask == ask
            and self.expansion == expansion
            and (self.query is query or bool(np.array_equal(self.query, query)))
        )


# -- the file's footer -----------------------------------------------------------------------------


def _footer(meta: dict[str, Any], shift: Floats) -> bytes:
    body = json.dumps(meta, sort_keys=True).encode() + np.asarray(shift, dtype="<f4").tobytes()
    return body + _TAIL.pack(len(body), zlib.crc32(body), MAGIC)


def _read_footer(path: Path) -> tuple[dict[str, Any], Floats]:
    """The footer's settings and shift; ValueError when it is missing, torn or does not add up."""
    size = path.stat().st_size
    if size < _TAIL.size:
        raise ValueError("too short")
    with open(path, "rb") as fh:
        fh.seek(size - _TAIL.size)
        body_len, crc, magic = _TAIL.unpack(fh.read(_TAIL.size))
        if magic != MAGIC or body_len > size - _TAIL.size:
            raise ValueError("no footer")
        fh.seek(size - _TAIL.size - body_len)
        body = fh.read(body_len)
    if zlib.crc32(body) != crc:
        raise ValueError("footer checksum")
    # the JSON is ASCII (json.dumps escapes the rest); the shift's raw bytes after it may hold any
    # byte, "}" included, so the JSON's end is found by decoding it, not by searching for a brace
    meta, end = json.JSONDecoder().raw_decode(body.decode("latin-1"))
    if not isinstance(meta, dict):
        raise ValueError("footer is not an object")
    shift = np.frombuffer(body[end:], dtype="<f4").astype(np.float32)
    if len(shift) != meta["dim"] or int(meta["payload_len"]) + body_len + _TAIL.size != size:
        raise ValueError("lengths")
    return meta, shift


def _crc_file(path: Path, length: int) -> int:
    """crc32 of the file's first `length` bytes, read through a memory map (no copies: at 66 MB, 32 ms
    against 57 ms in 4 MB reads, and the pages are then in memory for the mapped graph's first search)."""
    with open(path, "rb") as fh:
        if length <= 0:
            return 0
        if os.fstat(fh.fileno()).st_size < length:
            raise ValueError("short file")
        with mmap.mmap(fh.fileno(), length, access=mmap.ACCESS_READ) as mapped:
            view = memoryview(mapped)
            try:
                return zlib.crc32(view)
            finally:
                view.release()
