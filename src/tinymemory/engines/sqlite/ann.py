"""An optional HNSW index (usearch, the `ann` extra) over the `vectors` table, for very large files.

Why optional and off by default: measured on the 2-core development machine (docs/benchmarks.md, scale
section; docs/architecture/sqlite.md, "Vector search at scale"), the exact float32 scan of
`vectors.VectorMatrix` meets the 1M-row latency target with the default 256-d embedder, while an HNSW
index costs minutes of build at 1M, insert time on every write, and recall@10 below 1 (0.72 to 0.91 at
100k). It is here for files past `ANN_MIN_ROWS` with larger vectors, where the exact scan is too slow.

It mirrors the matrix: rows are keyed by `items.rowid`, which only grows, so catching up with this or
another process's writes is one range read past the largest key indexed. The graph is persisted next to
the database file in one file per embedder, replaced atomically; the largest key in it says how far it
covers, so a process that loads it reads only newer rows from SQL. Rows forgotten or purged elsewhere
may linger in the graph: callers re-check every hit in SQL, as they do for the matrix.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tinymemory.engines.sqlite import vectors
from tinymemory.engines.sqlite.vectors import Floats, Ints

# Below this many vectors the exact scan is fast enough (measured: 0.6 ms at 10k, 4-8 ms at 100k).
ANN_MIN_ROWS = 500_000
DTYPE = "f16"  # i8 measured recall@10 0.67 at 1M against 0.96 for f16


def available() -> bool:
    """Whether the optional `usearch` package is installed."""
    return importlib.util.find_spec("usearch") is not None


def should_use(rows: int, threshold: int = ANN_MIN_ROWS) -> bool:
    return rows >= threshold and available()


def index_path(db_path: str, embedder: str, dim: int, dtype: str = DTYPE) -> Path | None:
    """`<db>.hnsw-<embedder>-<dim>-<dtype>`, or None for an in-memory database (nothing to persist)."""
    if db_path == ":memory:" or db_path.startswith("file::memory:"):
        return None
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder)
    return Path(f"{db_path}.hnsw-{safe}-{dim}-{dtype}")


class HnswIndex:
    """Approximate top-k by inner product over L2-normalised rows, kept in step with the vectors table."""

    def __init__(
        self,
        db_path: str,
        embedder: str,
        dim: int,
        *,
        dtype: str = DTYPE,
        expansion_search: int | None = None,
    ) -> None:
        self.embedder, self.dim, self.dtype = embedder, dim, dtype
        self.expansion_search = expansion_search  # None: usearch's default (64); higher: better recall
        self.path = index_path(db_path, embedder, dim, dtype)
        self._index: Any = self._new()
        self.last_rowid = 0
        self.threads = os.cpu_count() or 1

    def _new(self) -> Any:
        from usearch.index import Index

        return Index(ndim=self.dim, metric="ip", dtype=self.dtype, expansion_search=self.expansion_search)

    @property
    def size(self) -> int:
        return len(self._index)

    def load(self) -> bool:
        """Replace the in-memory graph with the persisted one when it exists and matches; True if loaded."""
        from usearch.index import Index

        if self.path is None or not self.path.exists():
            return False
        meta = Index.metadata(str(self.path))
        if meta is None or int(meta["dimensions"]) != self.dim:
            return False
        restored: Any = Index.restore(str(self.path))
        if restored is None or restored.dtype != self._index.dtype:
            return False
        if self.expansion_search is not None:
            restored.expansion_search = self.expansion_search
        self._index = restored
        self.last_rowid = int(np.asarray(restored.keys).max()) if len(restored) else 0
        return True

    def refresh(self, conn: sqlite3.Connection) -> int:
        """Add the rows of this embedder committed past the largest key indexed; return how many."""
        added = 0
        while True:
            rows = conn.execute(
                "SELECT item_rowid, vec FROM vectors WHERE item_rowid > ? AND embedder = ? AND dim = ?"
                " ORDER BY item_rowid LIMIT ?",
                (self.last_rowid, self.embedder, self.dim, vectors.REFRESH_CHUNK),
            ).fetchall()
            if not rows:
                return added
            keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            block = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), self.dim)
            self._index.add(keys.astype(np.uint64), block, threads=self.threads)
            self.last_rowid = int(keys[-1])
            added += len(rows)
            if len(rows) < vectors.REFRESH_CHUNK:
                return added

    def save(self) -> None:
        """Write the graph beside the database atomically (a temp file, then a rename)."""
        if self.path is None:
            return
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        try:
            self._index.save(tmp)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def set_expansion(self, expansion_search: int) -> None:
        """Candidates kept while searching the graph: recall against latency, no rebuild needed."""
        self.expansion_search = expansion_search
        self._index.expansion_search = expansion_search

    def search(self, query: Floats, k: int, max_rowid: int | None = None) -> tuple[Ints, Floats]:
        """Up to k (rowid, cosine) best first, ties by rowid; rows past `max_rowid` are left out."""
        if k <= 0 or self.size == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        found = self._index.search(np.asarray(query, dtype=np.float32), min(k, self.size), threads=1)
        keys = np.asarray(found.keys, dtype=np.int64)
        scores = (1.0 - np.asarray(found.distances, dtype=np.float32)).astype(np.float32)
        if max_rowid is not None:
            keep = keys <= max_rowid
            keys, scores = keys[keep], scores[keep]
        order = np.lexsort((keys, -scores))
        return keys[order], scores[order]

    def reset(self) -> None:
        """Forget the graph in memory (the persisted file stays until the next save)."""
        self._index = self._new()
        self.last_rowid = 0
