"""When and how a semantic read uses the HNSW graph (ann.py) instead of scoring every row.

A read of the whole store (no filter beyond the default state) in a file of at least `ann.ANN_MIN_ROWS`
vectors asks the graph for its nearest rows, adds every row stored since the graph was built (the tail,
scored exactly), re-scores all of them from their stored vectors, and keeps those that pass the state
filter, widening until enough pass. Scores are therefore always the exact cosines the exact plans give;
an approximate read can only miss rows, never misjudge one. Past the widening limit, or while no graph
exists yet, the caller falls back to the exact scan. A hybrid read's first round is asked of the graph
on the helper thread, beside the lexical side (`GraphHolder.first_round`): the same call, so the same
rows, taken only for the graph, query vector and row count it was asked with.

Which rows a graph finds depends on every row in it, other tenants' among them, so a filtered read (a
reach, kinds, tags) never walks it: it is scored exactly over its own rows (search.py's filter-first
plan, or the matrix). Stricter than the Postgres engine, which walks its graph for large filtered reads.

The graph lives in a file beside the database, named after the embedder and the file's vectors epoch (a
re-embed makes a new name, so a graph of old vectors is never read). It is built, and extended when the
tail grows, on a background thread with its own connection, saved atomically, then swapped in; reads
meanwhile use the previous graph or the exact scan. A purge stops any build and deletes the files (they
hold the purged vectors), the matrix's saved copies too (vecfile.py); the next large read starts a new
build. When a copy of the graph's epoch exists, candidates are re-scored from it rather than from the
table (the same values). Files are deleted, not overwritten in
place: another process may have one mapped, and zeroing it under that process would corrupt its reads.
`build_now` runs the same build in the foreground (`tinymemory db index`), so a large file can be
prepared before it is served.

Exits. usearch releases the GIL while it adds, and an interpreter that exits with a daemon thread inside
such a call kills that thread when it asks for the GIL back; the kill unwinds through a C++ destructor
and the process dies with SIGABRT ("terminate called without an active exception"). So an exit hook
stops every build and waits for it: a build adds `ann.ADD_BATCH` rows per call and checks its stop flag
between calls, so the wait is one call (a fraction of a second), and a stopped build saves nothing. A
holder made with `background=False` (the CLI's one-shot commands) never starts a build: such a process
exits long before a build of a large file could finish, so it reads a saved graph if there is one and
otherwise scans, and the graph is left to long-lived processes and `tinymemory db index`.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from tinymemory.api.errors import Conflict, Unavailable
from tinymemory.engines.paths import in_memory
from tinymemory.engines.sqlite import vecfile
from tinymemory.engines.sqlite.connections import mapped
from tinymemory.engines.sqlite.vectors import (
    Floats,
    Ints,
    cosines,
    count_after,
    from_blobs,
    mapped_copy,
    read_epoch,
    scored_known,
)

if TYPE_CHECKING:  # ann.py (usearch's wrapper) loads on first use: a small read never needs it
    from tinymemory.engines.sqlite import ann

_log = logging.getLogger(__name__)
_warned_without_usearch = False


def _warn_without_usearch(rows: int) -> None:
    """Say once per process why a large file is read by the exact scan: the graph is the `ann` extra,
    and without it a read of a million vectors costs about 25 times more."""
    global _warned_without_usearch
    if not _warned_without_usearch:
        _warned_without_usearch = True
        _log.warning(
            "%d vectors are scored by the exact scan: install `tinymemory[ann]` (usearch) for the HNSW "
            "graph that reads files of this size faster",
            rows,
        )


def _ann() -> ModuleType:
    from tinymemory.engines.sqlite import ann

    return ann


# Rows past the graph's largest key that a read scores exactly; past this the graph is extended.
TAIL_MAX = 20_000
# Candidates a read may ask the graph for before it falls back to the exact scan.
MAX_K = 4_096
# The graph's expansion for a hybrid read (a semantic one walks at ann.EXPANSION_SEARCH): its lexical list
# backs the dense one, so a shallower walk costs it no recall (whole-store LoCoMo at 100,000 rows, R@10
# the same at 256 as at 512: docs/benchmarks.md, oneshot_phases) at half the graph's time.
HYBRID_EXPANSION = 256


def expansion_for(hybrid: bool) -> int | None:
    """The graph's expansion for a read: HYBRID_EXPANSION for a hybrid one, else the graph's own."""
    return HYBRID_EXPANSION if hybrid else None


# usearch 2.26 leaves some nodes unreachable when rows are added on several threads at once (600 rows on
# 2 threads: 19 graphs of 20 had a row no search could return; 5,000 rows: 2 rows; one thread: none), so
# the background build adds on one thread: slower, but every stored row stays findable, and the other
# core stays free for reads.
BUILD_THREADS = 1
# Seconds before a process retries a build another process was running.
RETRY_S = 5.0
# Seconds between tries for the build lock while a foreground build waits for another process's.
LOCK_POLL_S = 0.1
BUILD_OP = "build_index"
Progress = Callable[[int, int], None]  # (rows added so far, rows to add), after each chunk

# Every holder alive, for the exit hook; and whether the interpreter is exiting (no build starts then).
_HOLDERS: weakref.WeakSet[GraphHolder] = weakref.WeakSet()
_exiting = threading.Event()


def _stop_builds_at_exit() -> None:
    """Stop every build and wait for it, before the interpreter tears its threads down (see the module
    docstring: a thread torn down inside usearch aborts the process)."""
    _exiting.set()
    for holder in list(_HOLDERS):
        holder.close()


atexit.register(_stop_builds_at_exit)


def _join(thread: threading.Thread) -> None:
    """Wait for a build that has been told to stop, even through Ctrl-C: it ends within one usearch
    call, and leaving it running inside usearch is what aborts a process at exit."""
    while thread.is_alive():
        try:
            thread.join()
        except KeyboardInterrupt:
            continue


@dataclass(frozen=True, slots=True)
class Candidates:
    """Exactly scored rows, best first: the graph's neighbours and the tail."""

    rowids: Ints
    scores: Floats
    exhausted: bool  # the graph returned fewer rows than asked: widening cannot find more


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a foreground build did; `path` is None when there was nothing to index (no file written)."""

    path: Path | None
    rows: int  # rows in the graph now
    added: int  # rows this build added
    fresh: bool  # started from an empty graph (forced, or no whole saved graph of this epoch)
    seconds: float


class GraphHolder:
    """One engine's graph for one embedder: loaded on first use, (re)built in the background."""

    @classmethod
    def for_file(
        cls,
        db_path: str,
        embedder: str,
        dim: int,
        on_ready: Callable[[], None] | None = None,
        *,
        background: bool = True,
    ) -> GraphHolder | None:
        """A holder for a database file; None in memory (nothing to persist a graph beside).
        `on_ready` runs when a graph is swapped in (the engine frees its matrix then); `background`
        False never starts a background build (a short-lived process: see the module docstring)."""
        if in_memory(db_path):
            return None
        return cls(db_path, embedder, dim, on_ready, background=background)

    @staticmethod
    def serves(rows: int) -> bool:
        """Whether a file of this many vectors is read through a graph (and usearch is installed)."""
        ann = _ann()
        if rows >= ann.ANN_MIN_ROWS and not ann.available():
            _warn_without_usearch(rows)
        return bool(ann.should_use(rows, ann.ANN_MIN_ROWS))

    def __init__(
        self,
        db_path: str,
        embedder: str,
        dim: int,
        on_ready: Callable[[], None] | None = None,
        *,
        background: bool = True,
    ) -> None:
        self.db_path, self.embedder, self.dim = db_path, embedder, dim
        self._on_ready = on_ready
        self.background = background
        self._lock = threading.Lock()
        self._graph: ann.HnswIndex | None = None
        self._epoch: int | None = None
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._closed = False
        self._retry_at = 0.0  # another process was building: do not try again before this
        # the matrix's saved copy (vecfile.py) of the graph's epoch: candidates are re-scored from it
        self._copy: vecfile.Mapped | None = None
        self._copy_retry_at = 0.0
        _HOLDERS.add(self)

    # -- files ----------------------------------------------------------------------------------------

    def path_for(self, epoch: int) -> Path | None:
        base = _ann().index_path(self.db_path, self.embedder, self.dim)
        return None if base is None else base.with_name(f"{base.name}-e{epoch}")

    def files(self) -> list[Path]:
        """Every graph file of this database and embedder, whatever its epoch or state."""
        base = _ann().index_path(self.db_path, self.embedder, self.dim)
        if base is None or not base.parent.exists():
            return []
        return sorted(p for p in base.parent.iterdir() if p.name.startswith(base.name))

    # -- reads ----------------------------------------------------------------------------------------

    def graph(self, conn: sqlite3.Connection, *, build: bool = True) -> ann.HnswIndex | None:
        """The graph for the file's current vectors, or None (a build is then started, if none runs,
        unless `build` is False: the caller starts it with `extend` once its read is answered)."""
        epoch = read_epoch(conn)
        with self._lock:
            if self._closed:
                return None
            if self._graph is not None and self._epoch == epoch:
                return self._graph
            self._graph, self._epoch = None, epoch
            loaded = self._load(epoch)
            if loaded is not None:
                self._graph = loaded
                self._ready()
                return loaded
            if build:
                self._start(epoch)
            return None

    def copy(self, conn: sqlite3.Connection) -> vecfile.Mapped | None:
        """The matrix's saved copy of the graph's epoch, mapped, for re-scoring its candidates without
        reading their vectors from the table; looked for again at most every `RETRY_S` while missing
        (a scan in this or another process saves one)."""
        with self._lock:
            epoch = self._epoch
            if epoch is None:
                return None
            copy = self._copy
            if copy is not None and copy.epoch == epoch:
                return copy
            if time.monotonic() < self._copy_retry_at:
                return None
            self._copy = mapped_copy(conn, self.embedder, self.dim, epoch)
            if self._copy is None:
                self._copy_retry_at = time.monotonic() + RETRY_S
            return self._copy

    def _load(self, epoch: int) -> ann.HnswIndex | None:
        path = self.path_for(epoch)
        if path is None or not path.exists():
            return None
        index = _ann().HnswIndex(self.db_path, self.embedder, self.dim)
        index.path = path
        try:
            # mapped, not copied. Checksummed first (one read of the file): usearch trusts what it maps,
            # and a damaged file it walks can crash the process, not only give wrong rows
            return index if index.load(view=True, verify=True) else None
        except Exception as exc:  # a torn or foreign file: rebuild rather than fail the read
            _log.warning("sqlite: ignoring unreadable HNSW graph %s (%s); it will be rebuilt", path, exc)
            return None

    @property
    def loaded(self) -> bool:
        """Whether a graph is in memory: a large read will most likely walk it, not scan."""
        return self._graph is not None

    def first_round(self, qvec: Floats, n: int, expansion: int | None = None) -> ann.FirstRound | None:
        """The first round a whole-store read of `n` rows will ask of the graph in memory (at
        `expansion`, `expansion_for`), asked now: on the helper thread, beside the lexical side (see
        `candidates`). None without a graph."""
        graph = self._graph
        if graph is None or graph.size == 0 or qvec.shape != (self.dim,):
            return None
        return graph.first_round(qvec, first_k(n), expansion)

    def _ready(self) -> None:
        if self._on_ready is not None:
            self._on_ready()

    def extend(self) -> None:
        """Start a background build or extension (a read found no graph, or its tail grown past
        `TAIL_MAX`), unless one runs."""
        with self._lock:
            if self._epoch is not None and not self._closed:
                self._start(self._epoch)

    # -- background builds ----------------------------------------------------------------------------

    def _start(self, epoch: int) -> None:
        """Called with the lock held."""
        if not self.background or _exiting.is_set():
            return
        if self._worker is not None and self._worker.is_alive():
            return
        if time.monotonic() < self._retry_at:
            return
        self._stop.clear()
        self._worker = threading.Thread(
            target=self._build, args=(epoch,), name="tinymemory-hnsw", daemon=True
        )
        self._worker.start()

    def _build(self, epoch: int) -> None:
        """The background build: extend the saved graph of `epoch` (or start one), save it, swap it in.
        Any failure is logged and leaves the exact scan serving."""
        try:
            self._grow(epoch)
        except Exception as exc:  # the exact scan keeps serving; say why the graph is missing
            _log.warning("sqlite: building the HNSW graph failed (%s); reads use the exact scan", exc)

    def _grow(
        self, epoch: int, *, fresh: bool = False, progress: Progress | None = None
    ) -> BuildReport | None:
        """The one build path (background and `build_now`): load the saved graph of `epoch` unless
        `fresh`, add the rows past it a chunk at a time, save, swap in, delete stale files.

        None when it was abandoned: stopped, closed, or the file re-embedded meanwhile (nothing saved).
        An empty graph is kept in memory but not saved: loaded again, it would fix its centring shift
        at zero for every row added later (see ann.py)."""
        path = self.path_for(epoch)
        if path is None:
            return None
        with self._build_lock(wait=progress is not None) as ours:
            if not ours:  # another process is building this file's graph: load it when it is saved
                self._retry_at = time.monotonic() + RETRY_S
                return None
            return self._grow_locked(epoch, path, fresh, progress)

    @contextlib.contextmanager
    def _build_lock(self, wait: bool) -> Iterator[bool]:
        """One build per database file across processes (an advisory lock on `<db>.hnsw.lock`): True
        when this process holds it. Without fcntl (or a writable folder) every process may build."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            yield True
            return
        try:
            handle = open(f"{self.db_path}.hnsw.lock", "a+b")  # noqa: SIM115 - held for the build
        except OSError:
            yield True
            return
        try:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    # a waiting build polls, so a close, a purge or an exit can stop it meanwhile
                    if not wait or self._stop.wait(LOCK_POLL_S):
                        yield False
                        return
            yield True
        finally:
            handle.close()  # releases the lock

    def _grow_locked(
        self, epoch: int, path: Path, fresh: bool, progress: Progress | None
    ) -> BuildReport | None:
        started = time.monotonic()
        uri = Path(self.db_path).resolve().as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            loaded = None if fresh else self._load(epoch)
            index = loaded or _ann().HnswIndex(self.db_path, self.embedder, self.dim, threads=BUILD_THREADS)
            index.threads = BUILD_THREADS
            index.path = path
            added, todo = 0, 0
            if progress is not None:
                todo = count_after(conn, self.embedder, self.dim, index.last_rowid)
                progress(0, todo)
            while not self._stop.is_set():
                if read_epoch(conn) != epoch:
                    return None  # re-embedded meanwhile: the next read starts over
                step = index.refresh(conn, limit=_ann().BUILD_CHUNK, stop=self._stop.is_set)
                if step == 0:
                    break
                added += step
                if progress is not None:
                    progress(added, max(todo, added))
            if self._stop.is_set():
                return None
            with self._lock:
                if self._closed or self._epoch != epoch or read_epoch(conn) != epoch:
                    return None
                if index.size == 0:  # reads score every row as the tail; no file until there are rows
                    self._graph = index
                    return BuildReport(None, 0, 0, True, time.monotonic() - started)
                index.save()
                if read_epoch(conn) != epoch:  # purged or re-embedded while saving: not a valid graph
                    path.unlink(missing_ok=True)
                    self._graph = None
                    return None
                self._graph = index
                self._ready()
            self._remove_stale(path, epoch)
            return BuildReport(path, index.size, added, loaded is None, time.monotonic() - started)
        finally:
            conn.close()

    def build_now(self, epoch: int, *, force: bool = False, progress: Progress | None = None) -> BuildReport:
        """Build or extend the graph of `epoch` and wait for it (`tinymemory db index`); `force` starts
        from scratch. It runs as the holder's build, so reads meanwhile start no second one, and `close`
        or a purge stops it as they stop a background build. A running background build is waited for
        (or, with `force`, stopped) first. The saved file is checksummed before it is extended.

        Raises Conflict when the file was re-embedded during the build, Unavailable when the engine
        was closed or purged meanwhile; the previous file then stays as it was."""
        outcome: list[BuildReport | BaseException | None] = []

        def work() -> None:
            try:
                outcome.append(self._grow(epoch, fresh=force, progress=progress))
            except BaseException as exc:  # handed to the caller's thread
                outcome.append(exc)

        while True:
            with self._lock:
                if self._closed:
                    raise Unavailable(f"{BUILD_OP}: the engine is closed")
                running = self._worker
                if running is None or not running.is_alive():
                    if self._epoch != epoch:
                        self._graph, self._epoch = None, epoch
                    self._stop.clear()
                    mine = threading.Thread(target=work, name="tinymemory-hnsw", daemon=True)
                    self._worker = mine
                    mine.start()
                    break
            if force:
                self._stop.set()
            running.join()
        try:
            mine.join()
        except BaseException:  # Ctrl-C in the caller: stop the build rather than leave it running
            self._stop.set()
            _join(mine)
            raise
        result = outcome[0] if outcome else None
        if isinstance(result, BaseException):
            raise mapped(BUILD_OP, result)
        if result is not None:
            return result
        if self._closed or self._stop.is_set():
            raise Unavailable(f"{BUILD_OP}: stopped before it finished (the engine was closed or purged)")
        raise Conflict(f"{BUILD_OP}: the store was re-embedded during the build; run it again")

    def _remove_stale(self, keep: Path, epoch: int) -> None:
        """Delete this embedder's other graphs, and any embedder's graph of an older epoch (a re-embed
        rewrote the vectors it holds); graphs of other embedders at this epoch may serve other engines."""
        base = _ann().index_path(self.db_path, self.embedder, self.dim)
        if base is None:
            return
        for other in base.parent.glob(f"{glob.escape(Path(self.db_path).name)}.hnsw-*"):
            if other == keep or other.name.endswith(".tmp"):
                continue
            if other.name.startswith(base.name) or not other.name.endswith(f"-e{epoch}"):
                other.unlink(missing_ok=True)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running background build (tests); True when none is running."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    def drop(self) -> None:
        """Forget the graph and delete its files (a purge): stop any build first. Every graph of this
        file, whatever its embedder, and every saved copy of the vector matrix (vecfile.py) hold the
        purged vectors too: they all go (`drop_all_files`)."""
        self._stop.set()
        self.wait()
        with self._lock:
            self._graph, self._epoch, self._copy = None, None, None
            drop_all_files(self.db_path)

    def stop(self) -> None:
        """Ask a running build to stop (it saves nothing); the next large read may start another."""
        self._stop.set()

    def close(self) -> None:
        """Stop any build (nothing is saved) and wait for it; no build starts afterwards."""
        with self._lock:
            self._closed = True
        self._stop.set()
        worker = self._worker
        if worker is not None:
            _join(worker)


def scored_tail(
    conn: sqlite3.Connection, graph: ann.HnswIndex, qvec: Floats, snapshot: int, dim: int, embedder: str
) -> tuple[Ints, Floats] | None:
    """The rows of this embedder stored since the graph was built, up to `snapshot`, scored exactly:
    read once per read, however often it widens. None past `TAIL_MAX` rows (the graph is behind)."""
    tail = conn.execute(
        "SELECT item_rowid, vec FROM vectors WHERE item_rowid > ? AND item_rowid <= ? AND embedder = ?"
        " AND dim = ? LIMIT ?",
        (graph.last_rowid, snapshot, embedder, dim, TAIL_MAX + 1),
    ).fetchall()
    if len(tail) > TAIL_MAX:
        return None
    tail_ids = np.fromiter((r[0] for r in tail), dtype=np.int64, count=len(tail))
    return tail_ids, cosines(from_blobs([r[1] for r in tail], dim), qvec)


def first_k(n: int) -> int:
    """Candidates the first round of a read of `n` rows asks for (widened when too few pass)."""
    return 2 * n + 32


def candidates(
    conn: sqlite3.Connection,
    graph: ann.HnswIndex,
    qvec: Floats,
    snapshot: int,
    k: int,
    dim: int,
    embedder: str,
    tail: tuple[Ints, Floats],
    copy: vecfile.Mapped | None = None,
    first: ann.FirstRound | None = None,
    expansion: int | None = None,
) -> Candidates:
    """The graph's k nearest rows at or below `snapshot`, scored exactly (from the matrix's mapped
    `copy` when there is one: at 100k, re-scoring 132 rows from the table cost about what the graph
    search did), with the scored tail. `first` is the graph's first round asked ahead
    (`GraphHolder.first_round`): the same rows, found while the lexical side ran. `expansion` is the
    read's (`expansion_for`)."""
    keys, _ = graph.search(qvec, k, max_rowid=snapshot, first=first, expansion=expansion)
    exhausted = len(keys) < min(k, graph.size)
    graph_ids, graph_scores = scored_known(conn, embedder, dim, keys, qvec, copy)
    tail_ids, tail_scores = tail
    rowids = np.concatenate([graph_ids, tail_ids])
    scores = np.concatenate([graph_scores, tail_scores]).astype(np.float32, copy=False)
    order = np.lexsort((rowids, -scores))  # best first, ties by rowid as the exact plans order them
    return Candidates(rowids[order], scores[order], exhausted)


def drop_all_files(db_path: str) -> None:
    """Delete every graph file and every saved matrix copy of this database, of any embedder and
    epoch: a purge, by an engine with or without an embedder of its own, leaves none of them holding
    a purged vector."""
    base = Path(db_path)
    if base.parent.exists():
        for path in base.parent.glob(f"{glob.escape(base.name)}.hnsw-*"):
            path.unlink(missing_ok=True)
    vecfile.drop_all(db_path)
