"""The in-process vector matrix: float32 rows mirrored from the `vectors` table, refreshed incrementally.

Vectors are stored as float16 blobs (half the bytes; cosines move by about 1e-4, which no ranking
measured here notices) and scored in float32: numpy has no fast float16 product (measured 10x slower).
Blobs written before float16 are float32; a blob's length says which it is, so both read.

Rowids only grow (AUTOINCREMENT, writers serialise), so catching up with this or another process's
writes is one indexed range read of the rows past the last one loaded. Purged rows stay in the matrix
until a local purge resets it; every hit is re-checked in SQL, so stale rows are never returned.
Re-embedding rewrites vectors of old rowids, which a range read cannot notice, so it bumps a counter in
`engine_meta` (`vectors_epoch`) and every matrix that sees the counter move reloads from scratch. A purge
bumps it too, so no process keeps a purged vector in memory (and HNSW graphs, named by the epoch, are
rebuilt without it).

A matrix that read at least `SAVE_MIN_ROWS` rows from the table saves itself beside the file, named by
the epoch (vecfile.py), and a new matrix on the file maps that copy and reads only the rows past it: a
process's first scan of a large file then costs about a warm one, not a decode of every blob.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tinymemory.engines.sqlite import reads, stale, vecfile
from tinymemory.engines.versions import Floats as Floats

# OpenBLAS (numpy's BLAS) runs a matrix-vector product on several threads once rows x columns passes
# about 460,000 cells, and those threads busy-wait: at 2,048 x 256 one product measured 150-420 us of
# CPU against 45 us on one thread, and a 1,900-row namespace's hybrid fetch 10-13 ms against 1.7 ms while
# another process kept the second core busy. Products are made in blocks of at most this many cells, so
# each runs on the calling thread alone (as fast as one large call on one thread: 10.4 against 10.0 ms
# at 100,000 x 256), without touching the process-wide BLAS thread count.
SINGLE_THREAD_CELLS = 262_144
# BLAS's matrix-vector product takes rows in groups and the last few rows of a block another way, which
# can move their cosines by an ulp (measured: 1 to 7 rows of 2,250 gathered rows, by the block's length).
# A block scored with its length rounded up to a multiple of this gives every row the cosine the
# whole-matrix scan gives it (BLOCK_ROWS is one), wherever the row sits and whichever rows are beside it.
SCORE_GROUP = 8
# Rows per refresh query: bounds the transient copy of blobs while a large matrix loads (at 100,000 rows,
# 65,536 a chunk left the process 110 MB larger after the load than 8,192 a chunk, for the same speed).
REFRESH_CHUNK = 8_192
Ints = npt.NDArray[np.int64]
EPOCH_KEY = "vectors_epoch"
# Rows a matrix reads from the table before it saves itself beside the file (vecfile.py): at 20,000 rows
# the table's load takes about 0.15 s, the copy's map a few milliseconds.
SAVE_MIN_ROWS = 20_000
# ... and at least this share of its rows (1/SAVE_SHARE): a copy is rewritten whole (1 GB at 1M rows of
# 256 dimensions), so a large matrix that grows is saved again after a tenth more rows, not every 20,000.
SAVE_SHARE = 10
# Whole-matrix scans served from a mapped copy before the next refresh moves its rows into memory: a
# short-lived process scans the mapping and exits; a long-lived one scans at in-memory speed after this.
MOVE_AFTER_SCANS = 8
# How far a saved row may lie from the table's own before the copy is refused (the same conversion
# gives the same values; this allows only for a platform's rounding).
SAVED_ATOL = 1e-6

_log = logging.getLogger(__name__)


STORED = "<f2"
LEGACY = "<f4"


def to_blob(vector: Floats) -> bytes:
    """A vector as stored: little-endian float16."""
    return np.ascontiguousarray(vector, dtype=STORED).tobytes()


def to_blobs(block: Floats) -> list[bytes]:
    """Each row of an (n, dim) block as `to_blob` stores it (the same bytes), narrowed in one pass."""
    return [row.tobytes() for row in np.ascontiguousarray(block, dtype=STORED)]


def from_blob(blob: bytes, dim: int) -> Floats:
    """A stored vector's exact values as float32, whichever width it was written in (export)."""
    dtype = STORED if len(blob) == 2 * dim else LEGACY
    return np.frombuffer(blob, dtype=dtype).astype(np.float32)


def from_blobs(blobs: Sequence[bytes], dim: int, out: Floats | None = None) -> Floats:
    """Stored vectors as one (n, dim) float32 block of unit rows, ready to score by dot product; written
    into `out` (an (n, dim) float32 array, such as the matrix's next free rows) when given.

    Rows are scaled back to unit length: float16 rounding moves a norm by about 1e-4, and the matrix
    scores by dot product, so this keeps its scores the cosines Postgres computes from the same values.
    float16 widens straight to float64 (the same values as through float32: both hold every float16
    exactly), and the rounded rows go straight into `out`: a first load from the table decodes every
    blob, and the float32 step and the block then copied into the matrix cost a quarter of the decode
    (8,192 rows into the matrix: 16 ms against 21; the same bits, checked on 100,000 rows)."""
    n = len(blobs)
    if n == 0:
        return np.empty((0, dim), dtype=np.float32) if out is None else out
    if set(map(len, blobs)) == {2 * dim}:
        wide = np.frombuffer(b"".join(blobs), dtype=STORED).reshape(n, dim).astype(np.float64)
    else:
        wide = np.stack([from_blob(b, dim) for b in blobs]).astype(np.float64)
    return _unit_rows(wide, out)


def scored_rows(
    conn: sqlite3.Connection, embedder: str, dim: int, rowids: Sequence[int], query: Floats
) -> tuple[Ints, Floats]:
    """(rowids, cosines) of the given rows' stored vectors of this embedder, read straight from the
    table in rowid order; rows without such a vector are left out."""
    found, block = _vector_rows(conn, embedder, dim, rowids)
    return found, grouped_scores(_with_room(block), len(found), query)


def _with_room(block: Floats) -> Floats:
    """`block` with zero rows after it up to `grouped(len(block))`, for `grouped_scores`."""
    n = len(block)
    if grouped(n) == n:
        return block
    out: Floats = np.zeros((grouped(n), block.shape[1]), dtype=np.float32)
    out[:n] = block
    return out


def _vector_rows(
    conn: sqlite3.Connection, embedder: str, dim: int, rowids: Sequence[int]
) -> tuple[Ints, Floats]:
    """(rowids, unit rows) of the given rows' stored vectors of this embedder, in rowid order; rows
    without such a vector are left out."""
    rows = conn.execute(
        "SELECT v.item_rowid, v.vec FROM json_each(?) j CROSS JOIN vectors v ON v.item_rowid = j.value"
        " WHERE v.embedder = ? AND v.dim = ? ORDER BY v.item_rowid",
        (json.dumps([int(r) for r in rowids]), embedder, dim),
    ).fetchall()
    found = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return found, from_blobs([r[1] for r in rows], dim)


# Unit rows a matrix that is not in memory keeps for its filter-first reads: about 20 MB at 256-d.
SPARSE_ROWS = 20_000


class SparseRows:
    """The unit rows filter-first reads took from the table while the whole matrix is not in memory,
    kept by rowid for the next read of the same reach: a user asks again and again over the same few
    hundred rows, and decoding them was most of such a read (measured at 1M: 500 rows, about 3 ms).

    A stored row's vector changes only when the file's vectors epoch moves (a purge or a re-embed), which
    empties the cache, as does the matrix's reset; past SPARSE_ROWS rows it starts again. The scores are
    the ones `scored_rows` computes from the table (the same unit rows, the same product)."""

    def __init__(self, embedder: str, dim: int) -> None:
        self.embedder = embedder
        self.dim = dim
        self._lock = threading.Lock()
        self._rows: dict[int, Floats] = {}
        self._epoch: int | None = None

    def clear(self) -> None:
        with self._lock:
            self._rows = {}
            self._epoch = None

    def __len__(self) -> int:
        return len(self._rows)

    def scored(self, conn: sqlite3.Connection, rowids: Sequence[int], query: Floats) -> tuple[Ints, Floats]:
        """(rowids, cosines) as `scored_rows` gives them, the rows read before served from memory."""
        epoch = read_epoch(conn)
        with self._lock:
            if epoch != self._epoch:
                self._rows, self._epoch = {}, epoch
            rows = self._rows
            held = {r: rows[r] for r in rowids if r in rows}
        missing = [r for r in rowids if r not in held]
        if missing:
            found, block = _vector_rows(conn, self.embedder, self.dim, missing)
            fresh = {int(r): block[i] for i, r in enumerate(found)}
            held.update(fresh)
            with self._lock:
                if self._epoch == epoch:
                    if len(self._rows) + len(fresh) > SPARSE_ROWS:
                        self._rows = {}
                    self._rows.update(fresh)
        order = sorted(held)
        ids = np.asarray(order, dtype=np.int64)
        if not order:
            return ids, np.empty(0, dtype=np.float32)
        return ids, grouped_scores(_with_room(np.stack([held[r] for r in order])), len(order), query)


def _unit_rows(wide: npt.NDArray[np.float64], out: Floats | None = None) -> Floats:
    """Each float64 row divided by its norm, in place, then rounded to float32 (into `out` when given);
    a zero row stays zero. The same values as `np.divide(block, np.linalg.norm(wide, axis=1),
    where=...)` gives, without the masked mixed-type division, which cost 45% more (8,192 rows: 56 ms
    against 33, the largest part of a table load)."""
    norms = np.sqrt(np.add.reduce(np.square(wide), axis=1, keepdims=True))
    norms[norms == 0] = 1.0
    np.divide(wide, norms, out=wide)
    if out is None:
        scaled: Floats = wide.astype(np.float32)
        return scaled
    out[...] = wide
    return out


def rows_after(
    conn: sqlite3.Connection, embedder: str, dim: int, last_rowid: int, limit: int
) -> list[tuple[int, bytes]]:
    """Up to `limit` (rowid, blob) of this embedder's vectors past `last_rowid`, in rowid order: how the
    matrix and the HNSW graph catch up with the table."""
    rows: list[tuple[int, bytes]] = conn.execute(
        "SELECT item_rowid, vec FROM vectors WHERE item_rowid > ? AND embedder = ? AND dim = ?"
        " ORDER BY item_rowid LIMIT ?",
        (last_rowid, embedder, dim, limit),
    ).fetchall()
    return rows


def count_after(conn: sqlite3.Connection, embedder: str, dim: int, last_rowid: int) -> int:
    """How many of this embedder's vectors lie past `last_rowid` (what a catch-up has to add)."""
    row = conn.execute(
        "SELECT count(*) FROM vectors WHERE item_rowid > ? AND embedder = ? AND dim = ?",
        (last_rowid, embedder, dim),
    ).fetchone()
    return int(row[0])


def read_epoch(conn: sqlite3.Connection) -> int:
    """How many times vectors of existing rows were rewritten (0: never)."""
    row = conn.execute("SELECT value FROM engine_meta WHERE key = ?", (EPOCH_KEY,)).fetchone()
    return int(row[0]) if row is not None else 0


def bump_epoch(conn: sqlite3.Connection) -> None:
    """Tell every matrix on this file, in any process, to reload: call inside the rewriting transaction."""
    conn.execute(
        "INSERT INTO engine_meta (key, value) VALUES (?, '1')"
        " ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
        (EPOCH_KEY,),
    )


@dataclass(frozen=True, slots=True)
class EarlyScores:
    """Cosines of a matrix's first `rows` rows, computed before the read that uses them."""

    generation: int
    rows: int
    scores: Floats


def block_rows(dim: int) -> int:
    """Rows per matrix-vector product at this width: under SINGLE_THREAD_CELLS, a multiple of
    SCORE_GROUP (so a row's cosine does not depend on which block it falls in)."""
    return max(SCORE_GROUP, SINGLE_THREAD_CELLS // max(dim, 1) // SCORE_GROUP * SCORE_GROUP)


def _dot_blocks(mat: Floats, q: Floats, out: Floats, start: int, end: int) -> None:
    step = block_rows(mat.shape[1])
    for at in range(start, end, step):
        stop = min(at + step, end)
        np.dot(mat[at:stop], q, out=out[at:stop])


def cosines(rows: Floats, query: Floats) -> Floats:
    """`rows @ query` for unit rows, in single-thread blocks (see SINGLE_THREAD_CELLS)."""
    out: Floats = np.empty(len(rows), dtype=np.float32)
    _dot_blocks(rows, query.astype(np.float32, copy=False), out, 0, len(rows))
    return out


@dataclass(frozen=True, slots=True)
class _View:
    """One consistent view of a matrix: rows [0, based) in `base` (a mapped saved copy, or empty), the
    rest in `mat` from its row 0; `rowids` covers both."""

    generation: int
    base: Floats
    mat: Floats
    rowids: Ints
    n: int

    @property
    def based(self) -> int:
        return len(self.base)

    def dot(self, q: Floats, out: Floats, start: int, end: int) -> None:
        """Cosines of rows [start, end) into out[start:end]."""
        based = self.based
        if start < based:
            _dot_blocks(self.base, q, out, start, min(end, based))
        if end > based:
            lo = max(start, based)
            _dot_blocks(self.mat, q, out[based:], lo - based, end - based)

    def rows_at(self, idx: npt.NDArray[np.intp], room: int | None = None) -> Floats:
        """The rows at these positions, in their order; with `room`, in an array of that many rows (the
        rest zero), for `grouped_scores`."""
        count = len(idx)
        out: Floats = np.zeros((max(count, room or 0), self.mat.shape[1]), dtype=np.float32)
        based = self.based
        if not based:
            np.take(self.mat, idx, axis=0, out=out[:count])
            return out
        low = idx < based
        head = out[:count]
        head[low] = self.base[idx[low]]
        head[~low] = self.mat[idx[~low] - based]
        return out


def grouped(n: int) -> int:
    """`n` rounded up to a multiple of SCORE_GROUP."""
    return -(-n // SCORE_GROUP) * SCORE_GROUP


def grouped_scores(rows: Floats, n: int, query: Floats) -> Floats:
    """Cosines of the first `n` of `rows`, scored over `grouped(n)` rows (`rows` holds at least that
    many; what lies past `n` is scored and dropped): see SCORE_GROUP."""
    return cosines(rows[: grouped(n)], query)[:n]


@dataclass(frozen=True, slots=True)
class NsBlock:
    """One namespace's unit rows, contiguous and in rowid order: `rows[:n]` and `rowids[:n]`, every row of
    the namespace with a vector in the matrix up to item rowid `upto`. The arrays have room past `n`
    (a multiple of SCORE_GROUP); an append writes there and makes a new block, so a block taken by a
    read never changes under it."""

    rows: Floats
    rowids: Ints
    n: int
    upto: int


class NamespaceBlocks:
    """Each namespace's rows of the matrix kept contiguous, for reads of a reach made of namespaces: a
    user's reach is their own few hundred rows and shared tiers every user of an agent reads, and
    listing those rows in SQL and gathering them from the matrix was most of such a read (50,000 items,
    a reach of 2,250 rows). A block is read through once, then extended by the rows stored in its
    namespace since (an indexed read of the namespace past its last rowid); another namespace's rows
    never enter it, so nothing stored elsewhere moves a score read from it.

    The blocks hold rows of every state, as the matrix does: reads check state and the rest of their
    filter in SQL. They go with the matrix's reset (a purge or a re-embed moves the vectors epoch, and the
    matrix resets), so no block holds a purged vector, and a block made from a view taken before a reset
    is never kept. Past the budget (as many rows as the matrix, at least SPARSE_ROWS) the least recently
    read blocks go first."""

    def __init__(self, embedder: str, dim: int) -> None:
        self.embedder = embedder
        self.dim = dim
        self._lock = threading.Lock()
        self._blocks: OrderedDict[str, NsBlock] = OrderedDict()
        self._rows = 0
        self.generation = 0
        self._epoch: int | None = None

    def clear(self) -> None:
        with self._lock:
            self._blocks = OrderedDict()
            self._rows = 0
            self.generation += 1
            self._epoch = None

    def at_epoch(self, epoch: int) -> None:
        """Empty the blocks when the file's vectors epoch moved since they were read (a purge or a
        re-embed, in any process): what a read checks first, the matrix in memory or not."""
        with self._lock:
            if self._epoch == epoch:
                return
        self.clear()
        with self._lock:
            self._epoch = epoch

    def __len__(self) -> int:
        return self._rows

    def namespaces(self) -> list[str]:
        with self._lock:
            return list(self._blocks)

    def block(self, conn: sqlite3.Connection, ns: str, view: _View | None, visible: int) -> NsBlock:
        """The block of `ns` covering its rows up to item rowid `visible` (the caller's transaction sees
        no row past it), extended and kept when it did not yet: from the matrix's `view` when it is in
        memory (up to its last row), otherwise from the table (the same unit rows)."""
        upto = visible if view is None else min(int(view.rowids[view.n - 1]) if view.n else 0, visible)
        with self._lock:
            generation = self.generation
            held = self._blocks.get(ns)
            if held is not None:
                self._blocks.move_to_end(ns)
                if held.upto >= upto:
                    return held
        start = held.upto if held is not None else 0
        if view is None:
            added_ids, added_rows = self._from_table(conn, ns, start, upto)
        else:
            added_ids, added_rows = _from_view(conn, ns, start, upto, view)
        with self._lock:
            if generation != self.generation or self._blocks.get(ns) is not held:
                # a reset, or another read extended it first: this read's rows, kept by no one
                return _extended(held, added_rows, added_ids, upto, self.dim, in_place=False)
            block = _extended(held, added_rows, added_ids, upto, self.dim, in_place=True)
            self._blocks[ns] = block
            self._rows += block.n - (held.n if held is not None else 0)
            self._evict(max(SPARSE_ROWS, visible if view is None else view.n), keep=ns)
        return block

    def _from_table(self, conn: sqlite3.Connection, ns: str, start: int, upto: int) -> tuple[Ints, Floats]:
        rows = conn.execute(
            "SELECT v.item_rowid, v.vec FROM items i CROSS JOIN vectors v ON v.item_rowid = i.rowid"
            " WHERE i.ns = ? AND i.rowid > ? AND i.rowid <= ? AND v.embedder = ? AND v.dim = ?"
            " ORDER BY i.rowid",
            (ns, start, upto, self.embedder, self.dim),
        ).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, from_blobs([r[1] for r in rows], self.dim)

    def _evict(self, budget: int, keep: str) -> None:
        while self._rows > budget and len(self._blocks) > 1:
            ns, old = next(iter(self._blocks.items()))
            if ns == keep:
                self._blocks.move_to_end(ns)
                continue
            del self._blocks[ns]
            self._rows -= old.n


def _from_view(conn: sqlite3.Connection, ns: str, start: int, upto: int, view: _View) -> tuple[Ints, Floats]:
    """The rowids and unit rows of the matrix's rows of `ns` in (start, upto]."""
    fresh = np.array(reads.namespace_rowids(conn, ns, start, upto), dtype=np.int64)
    known = view.rowids[: view.n]
    pos = np.minimum(np.searchsorted(known, fresh), max(view.n - 1, 0))
    ok = known[pos] == fresh if view.n else np.zeros(len(fresh), dtype=bool)
    return fresh[ok], view.rows_at(pos[ok])


def _extended(
    held: NsBlock | None, rows: Floats, rowids: Ints, upto: int, dim: int, *, in_place: bool
) -> NsBlock:
    """`held` with these rows appended, as a new block: `in_place` (the kept block's owner, under the
    lock) writes past its `n` when there is room, where no read of `held` takes a row from."""
    count = len(rowids)
    n = held.n if held is not None else 0
    if held is not None and in_place and n + count <= len(held.rowids):
        held.rows[n : n + count] = rows[:count]
        held.rowids[n : n + count] = rowids
        return NsBlock(held.rows, held.rowids, n + count, upto)
    capacity = grouped(max(2 * n, n + count, SCORE_GROUP))
    new_rows: Floats = np.zeros((capacity, dim), dtype=np.float32)
    new_ids: Ints = np.zeros(capacity, dtype=np.int64)
    if held is not None:
        new_rows[:n] = held.rows[:n]
        new_ids[:n] = held.rowids[:n]
    new_rows[n : n + count] = rows[:count]
    new_ids[n : n + count] = rowids
    return NsBlock(new_rows, new_ids, n + count, upto)


class VectorMatrix:
    """Exact cosine search over L2-normalised rows: one matrix-vector product and an argpartition.

    A large matrix is saved beside its file once loaded (vecfile.py), and a new matrix on that file maps
    the saved rows instead of decoding the table's blobs, reading only the rows stored since."""

    def __init__(self, embedder: str, dim: int) -> None:
        self.embedder = embedder
        self.dim = dim
        self.generation = 0  # bumped by every reset, so a scan taken before one is never reused
        self.epoch: int | None = None  # the file's vectors_epoch when last refreshed (None: never)
        self.stale_checked = False  # the first load counts items without a vector of this embedder
        self.saver: threading.Thread | None = None  # the last save of this matrix (tests wait for it)
        # Refreshes and resets of one matrix are serialised; reads take a consistent view and score it
        # without the lock (arrays are only replaced, never shrunk under a view).
        self._lock = threading.RLock()
        self.sparse = SparseRows(embedder, dim)  # what filter-first reads keep while the matrix is not loaded
        self.blocks = NamespaceBlocks(embedder, dim)  # each namespace's rows, for reads of a reach
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._base: Floats = np.empty((0, self.dim), dtype=np.float32)
            self._mat: Floats = np.empty((0, self.dim), dtype=np.float32)
            self._rowids: Ints = np.empty(0, dtype=np.int64)
            self._n = 0
            self.last_rowid = 0
            self.generation += 1
            self.epoch = None
            self.from_table = 0  # rows read from the table since the last load or save of a copy
            self.scans = 0  # whole-matrix scans since the last reset (a mapped copy is moved after some)
            self.sparse.clear()
            self.blocks.clear()

    @property
    def loaded(self) -> bool:
        """Whether the matrix has been filled from the file at least once (since the last reset)."""
        return self.epoch is not None

    @property
    def mapped_rows(self) -> int:
        """Rows served from a saved copy (vecfile.py) rather than read from the table."""
        return len(self._base)

    def _view(self) -> _View:
        with self._lock:
            return _View(self.generation, self._base, self._mat, self._rowids, self._n)

    @property
    def size(self) -> int:
        return self._n

    @property
    def rowids(self) -> Ints:
        view = self._view()
        return view.rowids[: view.n]

    def refresh(self, conn: sqlite3.Connection) -> int:
        """Load rows committed since the last refresh (all of them after a re-embed); return how many
        were added. The first load maps a saved copy when there is a valid one, and also warns, once,
        about items this embedder has no vector for."""
        with self._lock:
            epoch = read_epoch(conn)
            if self.epoch is not None and epoch != self.epoch:
                self.reset()
            first = self.epoch is None
            self.epoch = epoch
            added = self._map_saved(conn, epoch) if first and self._n == 0 else 0
            if len(self._base) and self.scans >= MOVE_AFTER_SCANS:
                self._move_into_memory()
            added += self._load_new(conn)
            if not self.stale_checked:
                self.stale_checked = True
                stale.warn_if_stale(conn, self.embedder, self.dim, self._n)
            if self.from_table >= max(SAVE_MIN_ROWS, self._n // SAVE_SHARE) and not self._saving():
                self._save(conn, epoch)
            return added

    # -- the saved copy (vecfile.py) --------------------------------------------------------------------

    def _map_saved(self, conn: sqlite3.Connection, epoch: int) -> int:
        mapped = mapped_copy(conn, self.embedder, self.dim, epoch, populate=True)
        if mapped is None:
            return 0
        n = len(mapped.rowids)
        self._base = mapped.rows
        self._rowids = np.array(mapped.rowids, dtype=np.int64)
        self._n = n
        self.last_rowid = int(mapped.rowids[-1])
        return n

    def _move_into_memory(self) -> None:
        """Copy the mapped rows into the process's memory: a scan of a mapped file measured 1.3-1.6x a
        scan of the same rows in memory (the file's pages are small, the array's are huge pages), so a
        process that keeps scanning pays one copy (about 30 ms at 100,000 rows) instead."""
        based, in_mat = len(self._base), self._n - len(self._base)
        mat = np.empty((based + max(len(self._mat), 1024), self.dim), dtype=np.float32)
        mat[:based] = self._base
        mat[based : based + in_mat] = self._mat[:in_mat]
        rowids = np.zeros(len(mat), dtype=np.int64)
        rowids[: self._n] = self._rowids[: self._n]
        self._base = np.empty((0, self.dim), dtype=np.float32)
        self._mat, self._rowids = mat, rowids

    def _saving(self) -> bool:
        return self.saver is not None and self.saver.is_alive()

    def _save(self, conn: sqlite3.Connection, epoch: int) -> None:
        """Write the matrix beside its file on a thread of its own (an exit waits for it: not a daemon),
        then make sure no purge or re-embed moved the epoch meanwhile (the copy is deleted if one did)."""
        db_path = vecfile.db_file(conn)
        self.from_table = 0
        if db_path is None:
            return
        view = self._view()
        based, n = view.based, view.n
        parts = [
            (view.rowids[:based].copy(), view.base),
            (view.rowids[based:n].copy(), view.mat[: n - based]),
        ]
        embedder, dim = self.embedder, self.dim

        def work() -> None:
            try:
                vecfile.publish(db_path, parts, embedder, dim, epoch, lambda: epoch_now(db_path))
            except (OSError, sqlite3.Error, ValueError) as exc:  # a cache: reads go on from the table
                _log.info("sqlite: could not save the vector matrix beside %s (%s)", db_path, exc)

        self.saver = threading.Thread(target=work, name="tinymemory-vectors-save", daemon=False)
        self.saver.start()

    # -- loading from the table -------------------------------------------------------------------------

    def _load_new(self, conn: sqlite3.Connection) -> int:
        """Reads in chunks of `REFRESH_CHUNK` rows so a first load of a large file never holds every blob
        twice (at 1M x 384 one copy is 1.5 GB); a full first chunk reserves room for the rest at once."""
        added = 0
        while True:
            rows = rows_after(conn, self.embedder, self.dim, self.last_rowid, REFRESH_CHUNK)
            if not rows:
                return added
            if added == 0 and len(rows) == REFRESH_CHUNK:
                self._grow(self._n + count_after(conn, self.embedder, self.dim, self.last_rowid))
            self._append(rows)
            added += len(rows)
            self.from_table += len(rows)
            if len(rows) < REFRESH_CHUNK:
                return added

    def _append(self, rows: list[tuple[int, bytes]]) -> None:
        count = len(rows)
        self._grow(self._n + count)
        at = self._n - len(self._base)
        from_blobs([r[1] for r in rows], self.dim, out=self._mat[at : at + count])
        self._rowids[self._n : self._n + count] = [r[0] for r in rows]
        self._n += count
        self.last_rowid = int(rows[-1][0])

    @property
    def nbytes(self) -> int:
        """Memory held by the matrix and its rowids (capacity, not just the rows in use); rows mapped
        from a saved copy are the file's pages, not counted."""
        return int(self._mat.nbytes + self._rowids.nbytes)

    def _grow(self, needed: int) -> None:
        """Room for `needed` rows in all; only rows past a mapped copy take memory, so the doubling
        applies to them (a mapped 100,000 rows and a tail of 5 reserve 1,024, not 100,000)."""
        based = len(self._base)
        if needed <= len(self._rowids) and needed - based <= len(self._mat):
            return
        in_mat = self._n - based
        capacity = max(needed - based, 2 * len(self._mat), 1024)
        mat = np.empty((capacity, self.dim), dtype=np.float32)
        mat[:in_mat] = self._mat[:in_mat]
        rowids = np.zeros(based + capacity, dtype=np.int64)
        rowids[: self._n] = self._rowids[: self._n]
        self._mat, self._rowids = mat, rowids

    def scores(self, query: Floats, max_rowid: int | None = None, early: EarlyScores | None = None) -> Floats:
        """Cosine of every loaded row; rows past `max_rowid` (a cursor snapshot) get -inf."""
        return self.scored(query, max_rowid, early)[1]

    def scored(
        self, query: Floats, max_rowid: int | None = None, early: EarlyScores | None = None
    ) -> tuple[Ints, Floats]:
        """(rowids, cosines) of every loaded row, from one view of the matrix; rows past `max_rowid` (a
        cursor snapshot) get -inf.

        `early` is a scan of this matrix made before the latest refresh (see `early_scores`): only the
        rows loaded since are scored here, unless the matrix was reset in between.
        """
        q = query.astype(np.float32, copy=False)
        view = self._view()
        self.scans += 1
        n, rowids = view.n, view.rowids
        out: Floats = np.empty(n, dtype=np.float32)
        start = 0
        if early is not None and early.generation == view.generation and early.rows <= n:
            out[: early.rows] = early.scores
            start = early.rows
        view.dot(q, out, start, n)
        if max_rowid is not None and n and rowids[n - 1] > max_rowid:
            cut = int(np.searchsorted(rowids[:n], max_rowid, side="right"))
            out[cut:] = -np.inf
        return rowids[:n], out

    def early_scores(self, query: Floats) -> EarlyScores:
        """Scan the rows loaded so far, from another thread, while the database thread runs the lexical
        query: hybrid search then costs about the slower of the two instead of their sum. The view is taken
        under the matrix's lock, so a concurrent append or growth never exposes a half-written row."""
        view = self._view()
        out: Floats = np.empty(view.n, dtype=np.float32)
        view.dot(query.astype(np.float32, copy=False), out, 0, view.n)
        return EarlyScores(view.generation, view.n, out)

    def scores_for(self, query: Floats, rowids: Ints) -> tuple[Ints, Floats]:
        """Cosine of the given rowids only (those without a vector are dropped): the filter-first plan."""
        view = self._view()
        n = view.n
        known = view.rowids[:n]
        pos = np.searchsorted(known, rowids)
        pos = np.minimum(pos, max(n - 1, 0))
        ok = (known[pos] == rowids) if n else np.zeros(len(rowids), dtype=bool)
        idx = pos[ok]
        return rowids[ok], grouped_scores(view.rows_at(idx, grouped(len(idx))), len(idx), query)

    def scored_namespaces(
        self, conn: sqlite3.Connection, namespaces: Sequence[str], snapshot: int, visible: int, query: Floats
    ) -> tuple[Ints, Floats]:
        """(rowids, cosines) of every row of these namespaces with a vector at or below `snapshot`,
        whatever its state (the caller checks that in SQL), from the namespaces' blocks
        (`NamespaceBlocks`): the matrix's rows as of its last refresh when it is in memory, else the
        table's; `visible` is the largest item rowid the caller's transaction sees. Grouped as
        `scores_for` scores, so each row's cosine is the one the scan and the filter-first plan give."""
        self.blocks.at_epoch(read_epoch(conn))
        view = self._view() if self.loaded else None
        ids: list[Ints] = []
        scores: list[Floats] = []
        for ns in namespaces:
            block = self.blocks.block(conn, ns, view, visible)
            n = block.n
            if n and block.rowids[n - 1] > snapshot:
                n = int(np.searchsorted(block.rowids[:n], snapshot, side="right"))
            if n:
                ids.append(block.rowids[:n])
                scores.append(grouped_scores(block.rows, n, query))
        if not ids:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        return np.concatenate(ids), np.concatenate(scores)


def mapped_copy(
    conn: sqlite3.Connection, embedder: str, dim: int, epoch: int, *, populate: bool = False
) -> vecfile.Mapped | None:
    """The saved copy of this embedder's matrix at `epoch`, mapped, when there is a valid one;
    `populate` for a caller that scans every row (`vecfile.load`)."""
    db_path = vecfile.db_file(conn)
    if db_path is None:
        return None
    path = vecfile.path_for(db_path, embedder, dim, epoch)
    mapped = vecfile.load(path, embedder, dim, epoch, populate=populate)
    return mapped if mapped is not None and copy_matches(conn, mapped, embedder, dim) else None


def copy_matches(conn: sqlite3.Connection, mapped: vecfile.Mapped, embedder: str, dim: int) -> bool:
    """Whether sampled rows of a copy are the table's own (a copy beside a replaced file is not)."""
    at = vecfile.sample(len(mapped.rowids))
    wanted = [int(mapped.rowids[i]) for i in at]
    rows = conn.execute(
        "SELECT v.item_rowid, v.vec FROM json_each(?) j CROSS JOIN vectors v ON v.item_rowid = j.value"
        " WHERE v.embedder = ? AND v.dim = ? ORDER BY v.item_rowid",
        (json.dumps(wanted), embedder, dim),
    ).fetchall()
    if [int(r[0]) for r in rows] != wanted:
        return False
    stored = from_blobs([r[1] for r in rows], dim)
    return bool(np.allclose(stored, mapped.rows[at], rtol=0.0, atol=SAVED_ATOL))


def scored_known(
    conn: sqlite3.Connection,
    embedder: str,
    dim: int,
    rowids: Ints,
    query: Floats,
    copy: vecfile.Mapped | None,
) -> tuple[Ints, Floats]:
    """`scored_rows` of these rowids, the rows a mapped copy holds scored from it (no SQL, the same
    values) and the rest read from the table."""
    if copy is None or len(rowids) == 0:
        return scored_rows(conn, embedder, dim, rowids.tolist(), query)
    q = query.astype(np.float32, copy=False)
    pos = np.minimum(np.searchsorted(copy.rowids, rowids), len(copy.rowids) - 1)
    held = copy.rowids[pos] == rowids
    ids = rowids[held].astype(np.int64)
    scores = cosines(copy.rows[pos[held]], q)
    if bool(np.all(held)):
        return ids, scores
    rest_ids, rest_scores = scored_rows(conn, embedder, dim, rowids[~held].tolist(), query)
    return np.concatenate([ids, rest_ids]), np.concatenate([scores, rest_scores]).astype(np.float32)


def epoch_now(db_path: str) -> int:
    """The file's vectors epoch as committed now (a connection of its own, outside any snapshot)."""
    conn = sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return read_epoch(conn)
    finally:
        conn.close()


def top_by_rowid(rowids: Ints, scores: Floats, k: int) -> npt.NDArray[np.intp]:
    """Indices of the k best scores, best first, ties by lower rowid: `top_order` over rows in any order."""
    return _top(scores, k, rowids)


def top_order(scores: Floats, k: int) -> npt.NDArray[np.intp]:
    """Indices of the k best scores, best first (ties by index: lower rowid first)."""
    return _top(scores, k, None)


def _top(scores: Floats, k: int, rowids: Ints | None) -> npt.NDArray[np.intp]:
    """The k best, ties by `rowids` (by index without them)."""
    n = len(scores)
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.intp)
    if k >= n:
        part = np.arange(n)
    else:
        # widen to every row tied with the k-th score, so which tied rows make the cut is deterministic
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        part = np.flatnonzero(scores >= kth)
    order = np.lexsort((part if rowids is None else rowids[part], -scores[part]))[:k]
    return part[order]
