"""SqliteEngine: the embedded default engine (one file, WAL, lexical postings, an in-process vector matrix).

The contract lives in the engine core (engines/core.py); this module is SQLite's storage under it.
sqlite3 work that can wait never runs on the event loop: writes run on one writer thread owning the
writing connection, reads on a few reader threads with a connection each (connections.py), so reads
neither wait for writes nor for each other; a fetch of a reach known to be small runs where it is
called, on that thread's own connection, which never sleeps on a lock (INLINE_READ_S). Embedding runs
on helper threads before the write lock is taken, so the lock is held briefly, and concurrent stores
share one commit (group_commit.py).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeAlias, TypeVar

from tinymemory.api.blocking import MAY_BLOCK
from tinymemory.api.errors import NotFound, Unavailable, Unsupported
from tinymemory.api.filters import Facet, FetchMode, MetaFilter
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.namespace import Reach
from tinymemory.api.records import ImportResult, StoredRecord
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import ExploreResult, GetResult, StoreResult
from tinymemory.engines.core import Clock, StorageEngine
from tinymemory.engines.cursors import ListCursor
from tinymemory.engines.paths import default_db_path
from tinymemory.engines.sqlite import db, graph, portable, reads, search, store
from tinymemory.engines.sqlite.ann_reads import GraphHolder, drop_all_files, expansion_for
from tinymemory.engines.sqlite.connections import (
    DEFAULT_READERS,
    Connections,
    check_durability,
    check_readers,
)
from tinymemory.engines.sqlite.copies import CopyKeeper
from tinymemory.engines.sqlite.cursors import load_key
from tinymemory.engines.sqlite.group_commit import GroupCommit
from tinymemory.engines.sqlite.reembed import Progress, ReembedResult, reembed_items
from tinymemory.engines.sqlite.schema import SCHEMA_VERSION, user_version
from tinymemory.engines.sqlite.vectors import EarlyScores, Floats, VectorMatrix, bump_epoch, read_epoch
from tinymemory.engines.sqlite.where import is_selective
from tinymemory.engines.storage import (
    CandidateQuery,
    FetchPage,
    Indexing,
    IndexReport,
    Ranking,
    Storage,
    candidate_rowids,
    page_hits,
)
from tinymemory.engines.versions import Pending, embeds_inline
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.answer import Answerer
from tinymemory.retrieval.config import DEFAULT_CONFIG, RetrievalConfig
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.text import Analyzer

if TYPE_CHECKING:
    from tinymemory.engines.sqlite.ann import FirstRound

T = TypeVar("T")
# what the helper computes ahead beside a query vector (search.semantic uses it)
Early: TypeAlias = "EarlyScores | FirstRound | None"
_log = logging.getLogger(__name__)


# A file of at most this many rows keeps its vectors in memory from its first semantic read: holding
# them costs little, and reading a reach's vectors from SQL on every fetch is most of a small read's
# semantic side (one user's 100 memories in a 500-item file: 0.8 ms from SQL, 0.26 ms from memory,
# the same scores). A larger file loads them only for a read the filter does not narrow (search.py).
MATRIX_FILE_ROWS = 2_000

# A fetch of a reach (a selective filter) whose reads in its mode have lately taken at most this long (a
# moving average) runs where it is called, on its thread's own reading connection, instead of on a
# reader thread: the hop there and back (two thread wake-ups) is a fifth of such a read, and under load
# much more, as each woken thread waits for a core. Only while no other read of the engine is under
# way (concurrent reads keep the reader threads), never a reach's first read, nor one that would load
# the vector matrix or embed its query with an embedder slower than a hop (versions.embeds_inline, as a
# store does); a read SQLite cannot start at once (another connection's lock) goes to a reader
# thread as before (connections.open_here).
INLINE_READ_S = 0.002
READ_TIMES = 1_024  # (filter, mode) pairs whose read times are kept
# A read where it is called that finds more rows stored since the vector matrix last read them goes to
# a reader thread instead (it would read their vectors first: after a bulk store, many)
INLINE_NEW_ROWS = 256


class _Elsewhere(Exception):
    """A read begun where it was called that is bigger than it looked: hand it to a reader thread."""


# A query embedding that has lately taken at most this long (a moving average: a cached query, a static
# embedder) is computed on the reader thread itself, after the lexical work: handing it to the helper
# thread costs about as much as it would overlap.
INLINE_EMBED_S = 0.0005


class QueryVector:
    """A fetch's query vector (and early scan), started on the helper thread beside the lexical work,
    or (`future` None) left to the reader. `get` (on the reader thread) waits for it, or computes it
    there when the helper has not started on it yet (busy with another read, or not yet scheduled):
    the reader would only wait for it."""

    __slots__ = ("_future", "_work")

    def __init__(
        self,
        work: Callable[[], tuple[Floats, Early]],
        future: Future[tuple[Floats, Early]] | None,
    ) -> None:
        self._work, self._future = work, future

    def get(self) -> tuple[Floats, Early]:
        if self._future is None or self._future.cancel():
            return self._work()
        return self._future.result()

    def cancel(self) -> None:
        if self._future is not None:
            self._future.cancel()

    @property
    def inline(self) -> bool:
        """Whether the vector is computed where `get` is called (it was not handed to the helper)."""
        return self._future is None


class SqliteStorage(Storage):
    """engines.storage.Storage over one SQLite file (or `:memory:`); see SqliteEngine for the options."""

    name = "sqlite"
    schema = SCHEMA_VERSION

    def __init__(
        self,
        path: str | Path | None,
        indexing: Indexing,
        *,
        readers: int = DEFAULT_READERS,
        durability: str | None = None,
        background_index: bool = True,
    ) -> None:
        readers = check_readers(readers)
        durability = check_durability(durability)
        if path is None:
            path = default_db_path()
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder = indexing.embedder
        self.analyzer = indexing.analyzer
        self.context = indexing.context
        self._space: store.VectorSpace | None = None
        self._matrix: VectorMatrix | None = None
        if embedder is not None:
            self._space = store.VectorSpace(embedder.name, embedder.dim, embedder.embed)
            self._matrix = VectorMatrix(embedder.name, embedder.dim)
        # the HNSW graph for reads over many rows of a large file (ann_reads.py); none in memory
        self._graphs: GraphHolder | None = None
        # the matrix's copy beside the file, kept up to date by the process that stores (copies.py)
        self._copies: CopyKeeper | None = None
        if embedder is not None:
            self._copies = CopyKeeper.for_file(self.path, embedder.name, embedder.dim)
            # once a graph serves large reads the whole-store matrix is not needed: free it (a fallback
            # scan reloads it; small reaches read their rows from SQL)
            matrix = self._matrix
            self._graphs = GraphHolder.for_file(
                self.path,
                embedder.name,
                embedder.dim,
                on_ready=matrix.reset if matrix else None,
                background=background_index,
            )
        self._db = Connections(self.path, readers, durability)
        self.durability = durability
        self.background_index = background_index
        # query embeddings and early scans run beside the reads, so one helper per reader
        self._helper = ThreadPoolExecutor(
            max_workers=max(1, self._db.readers), thread_name_prefix="tinymemory-embed"
        )
        self._commits = GroupCommit(self._write_pending)
        self._closed = False
        self.last_semantic_plan: search.Plan | None = None  # for tests and diagnostics
        self._decoded = reads.decoded_rows()  # the items of rows fetches paged lately (reads.py)
        self._light = search.LightCache()  # candidates' light columns (search.py)
        self._embed_s = 0.0  # how long query embeddings have lately taken (INLINE_EMBED_S)
        # how long fetches of a (filter, mode) have lately taken, and the reads now on reader threads
        self._read_s: dict[tuple[MetaFilter, FetchMode], float] = {}
        self._reading = 0
        self._reading_lock = threading.Lock()

    # -- plumbing -------------------------------------------------------------------------------------

    async def _run(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` on the writer thread with the writing connection (writes, and reads that may write)."""
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        return await self._db.write(op, fn)

    async def _in_write(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` inside one write transaction on the writer thread."""
        return await self._run(op, lambda c: db.in_write(c, fn))

    async def _read(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` in one read transaction (one snapshot) on a reader thread."""
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        with self._reading_lock:
            self._reading += 1  # a fetch beside it keeps to the reader threads (INLINE_READ_S)
        try:
            return await self._db.read(op, lambda c: db.in_read(c, fn))
        finally:
            with self._reading_lock:
                self._reading -= 1

    async def cursor_key(self, op: str) -> bytes:
        return await self._run(op, load_key)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._graphs is not None:
            await asyncio.to_thread(self._graphs.close)  # stops a background build without saving it
        if self._copies is not None:  # the rows stored here, for the next reader; before the writing
            # connection closes, so its close still checkpoints the WAL and removes it
            await asyncio.to_thread(self._copies.close)
        await self._db.close()  # writes queued before this (stores included) commit first
        self._commits.fail_queued(Unavailable("store: the engine is closed"))
        self._helper.shutdown(wait=True)

    # -- writes ---------------------------------------------------------------------------------------

    async def active_keys(self, op: str, items: Sequence[NewItem], keys: Sequence[str]) -> set[str]:
        return await self._read(op, lambda c: store.active_keys(c, keys))

    async def write(self, op: str, pending: Sequence[Pending], now: datetime) -> list[StoreResult]:
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        # Queue the items, then ask the writer thread for a flush: it writes every store queued by then
        # in one transaction (group_commit.py). Shielded: a cancelled caller never strands the others.
        request = self._commits.enqueue(op, pending, now)
        try:
            if MAY_BLOCK.get():  # a sync caller on its own loop: the flush runs here, under the writer's lock
                self._db.write_here(op, self._commits.flush)
            else:
                await asyncio.shield(asyncio.wrap_future(self._db.submit_write(op, self._commits.flush)))
        except asyncio.CancelledError:
            self._commits.withdraw(request, Unavailable(f"{op}: cancelled before it was written"))
            raise
        except Exception:
            if self._commits.withdraw(request, Unavailable(f"{op}: the engine is closed")):
                raise  # never written; otherwise an earlier flush holds it and answers below
        if request.done.done():  # the usual case: our own flush, or an earlier one, wrote it
            written = request.done.result()
        else:
            written = await asyncio.wrap_future(request.done)
        if self._copies is not None:
            self._copies.stored(len(pending))
        return written

    def _write_pending(
        self, conn: sqlite3.Connection, pending: Sequence[Pending], now: datetime
    ) -> list[StoreResult]:
        """One caller's items, inside the open write transaction (the writer thread)."""
        return store.write_items(conn, pending, self.analyzer, self._space, now, self.context)

    async def forget_ids(
        self, op: str, ids: Sequence[str], reach: Reach | None, now: datetime
    ) -> tuple[list[str], list[str]]:
        done = await self._in_write(op, lambda w: store.forget_ids(w, ids, reach, now))
        if done[0]:
            self._light.clear()  # forgotten texts leave the process's caches
        return done

    async def forget_filter(self, op: str, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
        done = await self._run(
            op, lambda c: db.in_write(c, lambda w: store.forget_filter(w, flt, reach, now))
        )
        if done:
            self._light.clear()  # forgotten texts leave the process's caches
        return done

    async def purge(self, op: str, reach: Reach | None, forgotten_before: int | None) -> int:
        def purge_rows(w: sqlite3.Connection) -> int:
            n = store.purge(w, reach, forgotten_before)
            if n:
                # every matrix and graph on this file, in any process, held the purged vectors:
                # moving the vectors epoch makes each reload, and a graph build in flight discard itself
                bump_epoch(w)
            return n

        def run(c: sqlite3.Connection) -> int:
            n = db.in_write(c, purge_rows)
            if n:
                self._decoded.cache_clear()  # purged items leave the process too
                self._light.clear()
            if n and self._matrix is not None:
                self._matrix.reset()  # drop purged rows; reloads lazily on the next semantic read
            if n and self._copies is not None:
                self._copies.changed()  # a copy of the new epoch is written at close
            if n and self._graphs is not None:
                self._graphs.drop()  # the graph files hold purged vectors: remove them, rebuild later
            elif n:  # no embedder here, but another engine's graphs and matrix copies hold them too
                drop_all_files(self.path)
            if n and not db.scrub_wal(c):
                _log.warning("purge: another connection is reading; the WAL keeps old pages until it ends")
            return n

        return await self._run(op, run)

    async def import_records(self, op: str, records: Sequence[StoredRecord]) -> ImportResult:
        analyzer, context = self.analyzer, self.context
        space = (self._space.name, self._space.dim) if self._space is not None else None
        return await self._run(
            op,
            lambda c: db.in_write(c, lambda w: portable.import_batch(w, records, analyzer, space, context)),
        )

    # -- reads ----------------------------------------------------------------------------------------

    async def get(self, op: str, ids: Sequence[str], reach: Reach | None) -> GetResult:
        return await self._read(op, lambda r: reads.get_items(r, ids, reach))

    async def list_page(
        self, op: str, flt: MetaFilter, limit: int, after: ListCursor | None
    ) -> tuple[list[MemoryItem], bool]:
        return await self._read(op, lambda r: reads.list_page(r, flt, limit, after))

    async def explore(self, op: str, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
        return await self._read(op, lambda r: reads.explore(r, facet, flt, limit))

    async def expand(self, op: str, request: ExpandRequest) -> ExpandResult:
        return await self._read(op, lambda r: graph.expand(r, request))

    async def fetch(self, op: str, query: CandidateQuery, ranking: Ranking) -> FetchPage:
        # One read transaction (one snapshot) for the whole fetch: where it is called when it is small
        # (INLINE_READ_S), else after one hop to a reader thread. Only the query is embedded on read:
        # on the helper thread, while the reader ranks lexically, and the reader waits for it there
        # (not the event loop), so a fetch wakes the loop once. A whole-store read also starts its
        # semantic side on the helper (the graph's first round when a graph is in memory, else the
        # matrix scan), so the two rankers use both cores.
        embedding: QueryVector | None = None
        expansion = expansion_for(query.mode is FetchMode.HYBRID)
        if query.embed_query is not None:
            ahead = not is_selective(query.filter)
            embedding = self._embed_query(op, query.embed_query, ahead, query.want, expansion)
        key = (query.filter, query.mode)

        def read(conn: sqlite3.Connection, here: bool = False) -> FetchPage:
            start = time.perf_counter()
            page = self._fetch_in(conn, query, ranking, embedding, expansion, here)
            took = time.perf_counter() - start
            with self._reading_lock:  # reader threads and callers' threads share the times
                last = self._read_s.pop(key, None)  # re-inserted last: the oldest pair goes first
                self._read_s[key] = took if last is None else 0.8 * last + 0.2 * took
                if len(self._read_s) > READ_TIMES:
                    del self._read_s[next(iter(self._read_s))]
            return page

        try:
            if self._small(key, query, embedding):
                conn = self._db.here() or await self._db.open_here()
                if conn is not None and not self._closed and self._reading == 0:
                    done = self._read_here(op, conn, lambda c: read(c, here=True))
                    if done is not None:
                        return done
            return await self._read(op, read)
        finally:
            if embedding is not None:
                embedding.cancel()  # a read that failed before waiting for it: the vector is not needed

    def _small(
        self, key: tuple[MetaFilter, FetchMode], query: CandidateQuery, embedding: QueryVector | None
    ) -> bool:
        """Whether a fetch may run where it is called (INLINE_READ_S)."""
        took = self._read_s.get(key)
        return (
            took is not None
            and took <= INLINE_READ_S
            and self._reading == 0
            and is_selective(query.filter)
            and (embedding is None or embedding.inline)
            # the query embedded here too: only by an embedder that says it is quicker than a hop
            and (query.embed_query is None or (self.embedder is not None and embeds_inline(self.embedder, 1)))
            and (
                query.embed_query is None
                or self._matrix is None
                or (self._matrix.loaded and self._matrix.size <= MATRIX_FILE_ROWS)
            )
        )

    @staticmethod
    def _read_here(
        op: str, conn: sqlite3.Connection, read: Callable[[sqlite3.Connection], FetchPage]
    ) -> FetchPage | None:
        """`read` in one read transaction on the calling thread's connection; None (for a reader thread)
        when SQLite cannot start it at once, or it turns out bigger than it looked."""
        try:
            return db.in_read(conn, read)
        except _Elsewhere:
            return None
        except sqlite3.OperationalError as exc:
            if db.is_busy(exc):
                return None
            raise db.database_error(op, exc) from exc
        except db.ERRORS as exc:
            raise db.database_error(op, exc) from exc

    def _fetch_in(
        self,
        conn: sqlite3.Connection,
        query: CandidateQuery,
        ranking: Ranking,
        embedding: QueryVector | None,
        expansion: int | None,
        here: bool = False,
    ) -> FetchPage:
        """A whole fetch inside one read transaction, on a reader thread (or, `here`, where it was
        called: then one that would first read many new vectors raises _Elsewhere); `expansion` is the
        graph's for this read, the one its first round on the helper used too."""
        mode, flt = query.mode, query.filter
        snapshot = query.snapshot if query.snapshot is not None else search.max_rowid(conn)
        matrix = self._matrix
        if here and embedding is not None and matrix is not None:
            newest = snapshot if query.snapshot is None else search.max_rowid(conn)
            if newest - matrix.last_rowid > INLINE_NEW_ROWS:
                raise _Elsewhere
        # every score and weight below comes from the read's own reach (the first privacy rule); a
        # semantic read that no reranker reorders weighs no terms
        stats = pipeline.ScopeStats(0, 0)
        if mode is not FetchMode.SEMANTIC or ranking.wants_stats:
            stats = search.scope_stats(conn, self.analyzer, query.text, flt)
        lexical: pipeline.Ranked = []
        if mode is not FetchMode.SEMANTIC:
            lexical = search.lexical(
                conn,
                self.analyzer,
                query.text,
                flt,
                snapshot,
                query.want,
                query.postings_budget,
                query.context_weight,
                stats,
            )
            if not lexical and mode is FetchMode.LEXICAL and not self.analyzer.has_content_words(query.text):
                lexical = search.recent(conn, flt, snapshot, query.want)
        sem: pipeline.Ranked = []
        if embedding is not None:
            assert self._matrix is not None
            # a first whole-store read loads its graph or matrix while the helper embeds the query
            search.prepare(conn, self._matrix, flt, snapshot, self._graphs)
            # an embedder that failed raises here (Unavailable); a helper that has not started on the
            # vector yet (busy, or not scheduled) is not waited for: this thread computes it itself
            qvec, early = embedding.get()
            if not self._matrix.loaded and snapshot <= MATRIX_FILE_ROWS:
                self._matrix.refresh(conn)  # a small file: its vectors held, not read again per fetch
            outcome = search.semantic(
                conn,
                self._matrix,
                qvec,
                flt,
                snapshot,
                query.want,
                early,
                self._graphs,
                expansion,
            )
            self.last_semantic_plan = outcome.plan
            sem = outcome.ranked
        # one transaction: every row ranked above is still visible, so nothing is checked again
        anchor = search.latest_observed(conn, flt, snapshot) if ranking.wants_anchor else None
        window = ranking.window(flt, anchor)
        if window is not None:  # the days the query names, read again by each ranker
            if mode is not FetchMode.SEMANTIC:
                windowed = search.lexical(
                    conn, self.analyzer, query.text, window, snapshot, query.want,
                    query.postings_budget, query.context_weight, stats,
                )  # fmt: skip
                lexical = pipeline.merged(lexical, windowed)
            if embedding is not None:
                assert self._matrix is not None
                found = search.semantic(conn, self._matrix, qvec, window, snapshot, query.want)
                sem = pipeline.merged(sem, found.ranked)
        detail = ranking.light_detail(anchor)
        light: dict[int, pipeline.Light] = {}
        if detail is not None:
            light = search.light_rows(conn, candidate_rowids(lexical, sem), detail, snapshot, self._light)
        # the `links` stage: who in the reach holds each rare name the best rows mention
        terms = ranking.link_terms(lexical, sem, light, stats, anchor)
        holding = search.link_holders(conn, terms, ranking.rare, ranking.link_rows, flt, snapshot)
        page, more = ranking.page(lexical, sem, light, stats, anchor, holding)
        items = reads.items_by_rowid(conn, [r for r, _ in page], self._decoded)
        return FetchPage(snapshot, page_hits(page, items, ranking.why), more)

    def _embed_query(
        self, op: str, embed: Callable[[], Floats], ahead: bool, want: int, expansion: int | None
    ) -> QueryVector:
        """The query vector, and with `ahead` the graph's first round for `want` rows at `expansion`
        (a graph in memory) or the matrix scan over the rows loaded so far, on the helper thread while
        the reader thread ranks lexically (SQLite and usearch release the GIL: the two run side by
        side)."""
        matrix, graphs = self._matrix, self._graphs

        def work() -> tuple[Floats, Early]:
            start = time.perf_counter()
            vec = embed()
            self._embed_s = 0.8 * self._embed_s + 0.2 * (time.perf_counter() - start)
            if ahead and graphs is not None and graphs.loaded:
                return vec, graphs.first_round(vec, want, expansion)
            if ahead and matrix is not None and matrix.size and vec.shape == (matrix.dim,):
                return vec, matrix.early_scores(vec)
            return vec, None

        if not ahead and self._embed_s <= INLINE_EMBED_S:
            return QueryVector(work, None)
        try:
            return QueryVector(work, self._helper.submit(work))
        except RuntimeError:  # the helper was shut down meanwhile
            raise Unavailable(f"{op}: the engine is closed") from None

    async def export_records(self, vectors: bool) -> AsyncIterator[StoredRecord]:
        if self._closed:
            raise Unavailable("export: the engine is closed")
        if self.path == ":memory:":
            for record in await self._db.read("export", lambda c: portable.read_all(c, vectors)):
                yield record
            return
        async for record in portable.export_file(self.path, vectors):
            yield record

    # -- maintenance ----------------------------------------------------------------------------------

    async def reembed(self, batch: int, progress: Progress | None) -> ReembedResult:
        result = await reembed_items(self._run, self.embedder, self._matrix, batch, progress)
        if self._copies is not None and result.reembedded:
            self._copies.changed()
        return result

    async def build_index(
        self, op: str, force: bool, progress: Callable[[int, int], None] | None
    ) -> IndexReport:
        if self.embedder is None:
            raise Unsupported(f"{op}: there is no embedder (lexical-only search), so no vectors to index")
        if self._graphs is None:
            raise Unsupported(f"{op}: an in-memory database has no file to keep a graph in")
        from tinymemory.engines.sqlite import ann

        if not ann.available():
            raise Unsupported(
                f"{op}: the usearch package is not installed; install it with `pip install 'tinymemory[ann]'`"
            )
        if not Path(self.path).is_file():
            raise NotFound(f"{op}: no store at `{self.path}` (any command that writes creates it)")
        graphs = self._graphs
        epoch = await self._run(op, read_epoch)  # opens (and migrates) the file first
        try:
            built = await asyncio.to_thread(graphs.build_now, epoch, force=force, progress=progress)
        except asyncio.CancelledError:  # the caller stopped waiting (Ctrl-C): stop the build too
            graphs.stop()
            raise
        except db.ERRORS as exc:  # the build reads the vectors on a connection of its own
            raise db.database_error(op, exc) from exc
        if self._copies is not None:  # readers without the graph (or re-scoring its rows) map it
            await asyncio.to_thread(self._copies.now)
        return IndexReport(built.path, built.rows, built.added, built.fresh, built.seconds, ann.ANN_MIN_ROWS)

    async def stored_schema(self, op: str) -> int | None:
        return await asyncio.to_thread(db.schema_of_file, op, self.path)

    async def check_integrity(self, op: str) -> bool:
        await asyncio.to_thread(db.check_file, op, self.path)
        return self.path != ":memory:"

    async def upgrade(self, op: str) -> tuple[int, int]:
        before = await self.stored_schema(op) or 0
        after = await self._run(op, user_version)  # the writer's connection migrated the file on open
        return before, after


class SqliteEngine(StorageEngine):
    """The engine core (engines/core.py) over one SQLite file (or `:memory:`); processes may share a file.

    `readers`: reader threads, each with its own connection (0: reads share the writer's thread; a
    `:memory:` database always does). `durability` (default: $TINYMEMORY_SQLITE_SYNC, else "full"):
    "full" syncs the WAL to disk at every commit, so an acknowledged store survives a killed process, an
    OS crash and a power loss. "normal" syncs only when the WAL is checkpointed: an acknowledged store
    still survives a killed process, but the last commits before a power loss or an OS crash may be lost
    (the file stays intact, as of an earlier commit). It makes a single store several times cheaper.
    `background_index` (default True): whether a large whole-store read may start building the HNSW
    graph on a background thread (ann_reads.py). A short-lived process, such as a CLI command, passes
    False: it would exit long before the build finished, so it reads a saved graph or scans.
    `clock` (default: the system's UTC time) stamps stores and forgets (engines/core.py).
    `build_index` builds the file's HNSW graph (ann_reads.py) in the foreground, so a large file is
    ready before it serves; reads use it once the file holds `ann.ANN_MIN_ROWS` vectors.
    """

    storage: SqliteStorage
    # Every await of this engine is a thread's future (the writer's, a reader's, a worker's), so its
    # coroutines may run on any event loop: the sync facade runs writes on the caller's own (_loop.py),
    # and there (api.blocking.MAY_BLOCK) a store's flush runs on the caller's thread itself.
    loop_free: ClassVar[bool] = True

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embedder: Embedder | str | None = "default",
        answerer: Answerer | None = None,
        analyzer: Analyzer | None = None,
        retrieval: RetrievalConfig | None = None,
        readers: int = DEFAULT_READERS,
        durability: str | None = None,
        background_index: bool = True,
        clock: Clock | None = None,
    ) -> None:
        retrieval = retrieval or DEFAULT_CONFIG
        storage = SqliteStorage(
            path,
            Indexing.choose("sqlite", embedder, analyzer, retrieval),
            readers=readers,
            durability=durability,
            background_index=background_index,
        )
        super().__init__(storage, answerer=answerer, retrieval=retrieval, clock=clock)
        self.path = storage.path
        self.durability = storage.durability
        self.background_index = background_index

    @property
    def last_semantic_plan(self) -> search.Plan | None:
        """How the last semantic search met its filter (for tests and diagnostics)."""
        return self.storage.last_semantic_plan

    # -- re-embedding (engines/sqlite/reembed.py) -----------------------------------------------------

    async def reembed(self, batch: int = 256, progress: Progress | None = None) -> ReembedResult:
        """Give every item without a vector of the current embedder one, `batch` items per transaction.

        After a switch of embedder (or a file filled lexical-only) old items are invisible to semantic
        search until this runs. Resumable (a killed run keeps its committed batches) and replay-safe
        (a second run writes nothing); `progress(done, total)` runs after each batch.
        """
        return await self.storage.reembed(batch, progress)
