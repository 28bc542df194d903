"""SqliteEngine: the embedded default engine (one file, WAL, FTS5, an in-process vector matrix).

Blocking sqlite3 work never runs on the event loop: writes run on one writer thread owning the writing
connection, reads on a few reader threads with a connection each (connections.py), so reads neither
wait for writes nor for each other. Embedding runs on helper threads before the write lock is taken,
so the lock is held briefly, and concurrent stores share one commit (group_commit.py).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import TypeVar

import numpy as np

from tinymemory._version import __version__
from tinymemory.api import validate
from tinymemory.api.engine import EngineDescriptor
from tinymemory.api.errors import Unavailable, Unsupported
from tinymemory.api.filters import FetchMode
from tinymemory.api.ids import content_key
from tinymemory.api.items import NewItem
from tinymemory.api.records import ImportResult, StoredRecord, check_record
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import (
    ExploreRequest,
    ExploreResult,
    FetchRequest,
    FetchResult,
    ForgetRequest,
    ForgetResult,
    GetRequest,
    GetResult,
    Hit,
    ListRequest,
    ListResult,
    PurgeRequest,
    PurgeResult,
    RecallRequest,
    RecallResult,
    StoreResult,
)
from tinymemory.api.timeutil import ensure_utc
from tinymemory.engines.embedder_choice import resolve_embedder
from tinymemory.engines.paths import default_db_path
from tinymemory.engines.rows import to_us
from tinymemory.engines.sqlite import db, graph, portable, reads, search, store
from tinymemory.engines.sqlite.ann_reads import BuildReport, GraphHolder
from tinymemory.engines.sqlite.connections import (
    DEFAULT_READERS,
    Connections,
    check_durability,
    check_readers,
)
from tinymemory.engines.sqlite.cursors import CursorCodec, FetchCursor, ListCursor, fingerprint, load_key
from tinymemory.engines.sqlite.group_commit import GroupCommit
from tinymemory.engines.sqlite.reembed import Progress, ReembedResult, reembed_items
from tinymemory.engines.sqlite.schema import SCHEMA_VERSION
from tinymemory.engines.sqlite.vectors import EarlyScores, Floats, VectorMatrix, bump_epoch, read_epoch
from tinymemory.engines.sqlite.where import is_selective
from tinymemory.engines.telemetry import operation
from tinymemory.engines.versions import Pending, embed_new
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.answer import Answerer, ExtractiveAnswerer, answer_recall
from tinymemory.retrieval.config import DEFAULT_CONFIG, RetrievalConfig
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.temporal import with_event_range
from tinymemory.retrieval.text import Analyzer, analyzer_for

T = TypeVar("T")
_log = logging.getLogger(__name__)


class SqliteEngine:
    """api.MemoryEngine over one SQLite file (or `:memory:`). Safe to share a file between processes.

    `readers`: reader threads, each with its own connection (0: reads share the writer's thread; a
    `:memory:` database always does). `durability` (default: $TINYMEMORY_SQLITE_SYNC, else "full"):
    "full" syncs the WAL to disk at every commit, so an acknowledged store survives a killed process, an
    OS crash and a power loss. "normal" syncs only when the WAL is checkpointed: an acknowledged store
    still survives a killed process, but the last commits before a power loss or an OS crash may be lost
    (the file stays intact, as of an earlier commit). It makes a single store several times cheaper.
    `background_index` (default True): whether a large whole-store read may start building the HNSW
    graph on a background thread (ann_reads.py). A short-lived process, such as a CLI command, passes
    False: it would exit long before the build finished, so it reads a saved graph or scans.
    """

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
    ) -> None:
        readers = check_readers(readers)
        durability = check_durability(durability)
        if path is None:
            path = default_db_path()
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.embedder = resolve_embedder(embedder, "sqlite")
        self.answerer: Answerer = answerer or ExtractiveAnswerer()
        self.retrieval = retrieval or DEFAULT_CONFIG
        self.analyzer = analyzer or analyzer_for(self.retrieval.analyzer)
        modes: tuple[FetchMode, ...] = (FetchMode.LEXICAL,)
        if self.embedder is not None:
            modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
        self._descriptor = EngineDescriptor(
            name="sqlite",
            version=f"{__version__}+schema.{SCHEMA_VERSION}",
            fetch_modes=modes,
            embedder=self.embedder.name if self.embedder is not None else None,
        )
        self._space: store.VectorSpace | None = None
        self._matrix: VectorMatrix | None = None
        if self.embedder is not None:
            self._space = store.VectorSpace(self.embedder.name, self.embedder.dim, self.embedder.embed)
            self._matrix = VectorMatrix(self.embedder.name, self.embedder.dim)
        # the HNSW graph for reads over many rows of a large file (ann_reads.py); none in memory
        self._graphs: GraphHolder | None = None
        if self.embedder is not None:
            # once a graph serves large reads the whole-store matrix is not needed: free it (a fallback
            # scan reloads it; small reaches read their rows from SQL)
            matrix = self._matrix
            self._graphs = GraphHolder.for_file(
                self.path,
                self.embedder.name,
                self.embedder.dim,
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
        self._codec: CursorCodec | None = None  # the file's cursor key, read once (see cursors.py)
        self.last_semantic_plan: search.Plan | None = None  # for tests and diagnostics

    # -- plumbing -------------------------------------------------------------------------------------

    @property
    def descriptor(self) -> EngineDescriptor:
        return self._descriptor

    async def __aenter__(self) -> SqliteEngine:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _run(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` on the writer thread with the writing connection (writes, and reads that may write)."""
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        return await self._db.write(op, fn)

    async def _read(self, op: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` in one read transaction (one snapshot) on a reader thread."""
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        return await self._db.read(op, lambda c: db.in_read(c, fn))

    async def _cursors(self, op: str) -> CursorCodec:
        """The codec of this file's cursor key, read (or created) on first need."""
        if self._codec is None:
            self._codec = CursorCodec(await self._run(op, load_key))
        return self._codec

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._graphs is not None:
            await asyncio.to_thread(self._graphs.close)  # stops a background build without saving it
        await self._db.close()  # writes queued before this (stores included) commit first
        self._commits.fail_queued(Unavailable("store: the engine is closed"))
        self._helper.shutdown(wait=True)

    # -- writes ---------------------------------------------------------------------------------------

    @operation("store")
    async def store(self, item: NewItem) -> StoreResult:
        checked = validate.check_new_item("store", item)
        return (await self._store("store", [checked]))[0]

    @operation("store_many")
    async def store_many(self, items: Sequence[NewItem]) -> list[StoreResult]:
        checked = validate.check_new_items("store_many", items)
        return await self._store("store_many", checked) if checked else []

    async def _store(self, op: str, items: list[NewItem]) -> list[StoreResult]:
        keys = [content_key(it) for it in items]
        vectors = await self._embed_new(op, items, keys)
        if self.retrieval.temporal.extract_events:
            items = [with_event_range(it) for it in items]  # after the keys: identity is the content
        pending = [
            store.Pending(it, k, vectors.get(i)) for i, (it, k) in enumerate(zip(items, keys, strict=True))
        ]
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        # Queue the items, then ask the writer thread for a flush: it writes every store queued by then
        # in one transaction (group_commit.py). Shielded: a cancelled caller never strands the others.
        request = self._commits.enqueue(op, pending)
        try:
            await asyncio.shield(asyncio.wrap_future(self._db.submit_write(op, self._commits.flush)))
        except asyncio.CancelledError:
            self._commits.withdraw(request, Unavailable(f"{op}: cancelled before it was written"))
            raise
        except Exception:
            if self._commits.withdraw(request, Unavailable(f"{op}: the engine is closed")):
                raise  # never written; otherwise an earlier flush holds it and answers below
        if request.done.done():  # the usual case: our own flush, or an earlier one, wrote it
            return request.done.result()
        return await asyncio.wrap_future(request.done)

    def _write_pending(self, conn: sqlite3.Connection, pending: Sequence[Pending]) -> list[StoreResult]:
        """One caller's items, inside the open write transaction (the writer thread)."""
        return store.write_items(conn, pending, self.analyzer, self._space, self.retrieval.context.enabled)

    async def _embed_new(self, op: str, items: list[NewItem], keys: list[str]) -> dict[int, Floats]:
        """Embed, in one batch and outside the write lock, the items that will not be replays."""
        if self.embedder is None:
            return {}
        active = await self._read(op, lambda c: store.active_keys(c, keys))
        return await embed_new(op, self.embedder, items, keys, active)

    @operation("forget")
    async def forget(self, request: ForgetRequest) -> ForgetResult:
        req = validate.check_forget(request)
        if req.ids is not None:
            ids = req.ids
            forgotten, skipped = await self._run(
                "forget", lambda c: db.in_write(c, lambda w: store.forget_ids(w, ids, req.reach))
            )
            return ForgetResult(tuple(forgotten), tuple(skipped))
        flt = req.filter
        assert flt is not None
        done = await self._run(
            "forget", lambda c: db.in_write(c, lambda w: store.forget_filter(w, flt, req.reach))
        )
        return ForgetResult(tuple(done), ())

    @operation("purge")
    async def purge(self, request: PurgeRequest) -> PurgeResult:
        if not isinstance(request, PurgeRequest):
            raise validate.fail("purge", "request", "must be a PurgeRequest")
        validate.check_reach("purge", "reach", request.reach)
        before = None
        if request.forgotten_before is not None:
            before = to_us(ensure_utc(request.forgotten_before, field="purge: `forgotten_before`"))

        def purge_rows(w: sqlite3.Connection) -> int:
            n = store.purge(w, request.reach, before)
            if n:
                # every matrix and graph on this file, in any process, held the purged vectors:
                # moving the vectors epoch makes each reload, and a graph build in flight discard itself
                bump_epoch(w)
            return n

        def run(c: sqlite3.Connection) -> int:
            n = db.in_write(c, purge_rows)
            if n and self._matrix is not None:
                self._matrix.reset()  # drop purged rows; reloads lazily on the next semantic read
            if n and self._graphs is not None:
                self._graphs.drop()  # the graph files hold purged vectors: remove them, rebuild later
            if n and not db.scrub_wal(c):
                _log.warning("purge: another connection is reading; the WAL keeps old pages until it ends")
            return n

        return PurgeResult(await self._run("purge", run))

    # -- reads ----------------------------------------------------------------------------------------

    @operation("get")
    async def get(self, request: GetRequest) -> GetResult:
        req = validate.check_get(request)
        return await self._read("get", lambda r: reads.get_items(r, req.ids, req.reach))

    @operation("list")
    async def list(self, request: ListRequest) -> ListResult:
        req = validate.check_list(request)
        fp = fingerprint("list", req.filter)
        after = ListCursor.decode(await self._cursors("list"), "list", req.cursor, fp) if req.cursor else None
        items, more = await self._read("list", lambda r: reads.list_page(r, req.filter, req.limit, after))
        nxt = None
        if more and items:
            last = items[-1]
            assert last.meta.observed_at is not None
            nxt = ListCursor(to_us(last.meta.observed_at), last.id).encode(await self._cursors("list"), fp)
        return ListResult(tuple(items), nxt)

    @operation("explore")
    async def explore(self, request: ExploreRequest) -> ExploreResult:
        req = validate.check_explore(request)
        return await self._read("explore", lambda r: reads.explore(r, req.facet, req.filter, req.limit))

    @operation("fetch")
    async def fetch(self, request: FetchRequest) -> FetchResult:
        req = validate.check_fetch(request, self._descriptor.fetch_modes)
        return await self._fetch("fetch", req)

    async def _fetch(self, op: str, req: FetchRequest) -> FetchResult:
        mode = req.mode or self._descriptor.default_mode()
        if mode is None:  # pragma: no cover - lexical is always served
            raise validate.fail(op, "mode", "no fetch mode is served")
        fp = fingerprint("fetch", req.query, mode.value, req.filter, req.time_hint)
        cur = FetchCursor.decode(await self._cursors(op), op, req.cursor, fp) if req.cursor else None
        cfg = self.retrieval
        plan = pipeline.FetchPlan.make(
            mode,
            req.query,
            req.limit,
            req.time_hint,
            cfg,
            cursor_pool=cur.pool if cur is not None else None,
            cursor_offset=cur.offset if cur is not None else 0,
        )
        # Only the query is embedded on read; the embedding runs while FTS5 ranks (phase one).
        # A whole-store scan also starts on the helper thread, so the two rankers use both cores.
        embedding: asyncio.Future[tuple[Floats, EarlyScores | None]] | None = None
        if mode is not FetchMode.LEXICAL:
            # a whole-store read that will walk the graph needs no early scan of the matrix
            scan_early = not is_selective(req.filter) and not (self._graphs and self._graphs.loaded)
            embedding = asyncio.ensure_future(self._embed_query(op, req.query, scan_early))

        def lexical_phase(conn: sqlite3.Connection) -> tuple[int, pipeline.Ranked, pipeline.ScopeStats]:
            snapshot = cur.snapshot if cur is not None else search.max_rowid(conn)
            # every score and weight below comes from the read's own reach (the first privacy rule)
            stats = search.scope_stats(conn, self.analyzer, req.query, req.filter)
            if mode is FetchMode.SEMANTIC:
                return snapshot, [], stats
            lex = search.lexical(
                conn,
                self.analyzer,
                req.query,
                req.filter,
                snapshot,
                plan.want,
                plan.postings_budget(),
                cfg.context.weight,
                stats,
            )
            if not lex and mode is FetchMode.LEXICAL and not self.analyzer.has_content_words(req.query):
                lex = search.recent(conn, req.filter, snapshot, plan.want)
            return snapshot, lex, stats

        try:
            snapshot, lex, stats = await self._read(op, lexical_phase)
            qvec, early = await embedding if embedding is not None else (None, None)
        except BaseException:
            if embedding is not None:
                embedding.cancel()
            raise

        def rank_phase(conn: sqlite3.Connection) -> tuple[list[Hit], bool]:
            sem: pipeline.Ranked = []
            if qvec is not None:
                assert self._matrix is not None
                outcome = search.semantic(
                    conn, self._matrix, qvec, req.filter, snapshot, plan.want, early, self._graphs
                )
                self.last_semantic_plan = outcome.plan
                sem = outcome.ranked
            ranked = pipeline.rank_candidates(
                mode,
                search.still_visible(conn, lex, req.filter, snapshot),
                sem,
                lambda rowids, detailed: search.light_rows(conn, rowids, detailed, snapshot),
                stats=stats,
                cfg=cfg,
                query=req.query,
                analyzer=self.analyzer,
                hint=req.time_hint,
                anchor=lambda: search.latest_observed(conn, req.filter, snapshot),
            )
            page, more = pipeline.page(ranked, plan.offset, req.limit)
            items = reads.items_by_rowid(conn, [r for r, _ in page])
            return [Hit(items[r], round(s, 6)) for r, s in page if r in items], more

        hits, more = await self._read(op, rank_phase)
        nxt = (
            FetchCursor(snapshot, plan.offset + req.limit, plan.pool).encode(await self._cursors(op), fp)
            if more
            else None
        )
        return FetchResult(tuple(hits), mode, nxt)

    async def _embed_query(
        self, op: str, text: str, scan_early: bool = False
    ) -> tuple[Floats, EarlyScores | None]:
        """The query vector, and with `scan_early` the matrix scan over the rows loaded so far, both on
        the helper thread while the database thread ranks lexically."""
        assert self.embedder is not None
        embedder, matrix = self.embedder, self._matrix

        def work() -> tuple[Floats, EarlyScores | None]:
            vec = np.asarray(embedder.embed_query(text), dtype=np.float32).reshape(-1)
            if scan_early and matrix is not None and matrix.size and vec.shape == (matrix.dim,):
                return vec, matrix.early_scores(vec)
            return vec, None

        try:
            return await asyncio.get_running_loop().run_in_executor(self._helper, work)
        except Exception as exc:
            raise Unavailable(f"{op}: the embedder failed ({exc})") from exc

    @operation("recall")
    async def recall(self, request: RecallRequest) -> RecallResult:
        req = validate.check_recall(request, self._descriptor.fetch_modes)
        fetched = await self._fetch(
            "recall",
            FetchRequest(
                query=req.question, mode=req.mode, filter=req.filter, limit=req.limit, time_hint=req.time_hint
            ),
        )
        return await answer_recall(self.answerer, req.question, fetched.hits, req.instructions)

    # -- re-embedding (engines/sqlite/reembed.py) -----------------------------------------------------

    async def reembed(self, batch: int = 256, progress: Progress | None = None) -> ReembedResult:
        """Give every item without a vector of the current embedder one, `batch` items per transaction.

        After a switch of embedder (or a file filled lexical-only) old items are invisible to semantic
        search until this runs. Resumable (a killed run keeps its committed batches) and replay-safe
        (a second run writes nothing); `progress(done, total)` runs after each batch.
        """
        return await reembed_items(self._run, self.embedder, self._matrix, batch, progress)

    # -- the HNSW graph (engines/sqlite/ann_reads.py) -------------------------------------------------

    async def build_index(
        self, *, force: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> BuildReport:
        """Build the HNSW graph of this embedder now, or bring the saved one up to date, and wait for
        it, so a large file is ready before it serves (else the first large read starts it in the
        background). `force` starts from scratch; `progress(added, to_add)` runs after each chunk, on
        the build's thread. Reads use the graph once the file holds `ann.ANN_MIN_ROWS` vectors."""
        op = "build_index"
        if self.embedder is None:
            raise Unsupported(f"{op}: there is no embedder (lexical-only search), so no vectors to index")
        if self._graphs is None:
            raise Unsupported(f"{op}: an in-memory database has no file to keep a graph in")
        from tinymemory.engines.sqlite import ann

        if not ann.available():
            raise Unsupported(
                f"{op}: the usearch package is not installed; install it with `pip install 'tinymemory[ann]'`"
            )
        graphs = self._graphs
        epoch = await self._run(op, read_epoch)  # opens (and migrates) the file first
        try:
            return await asyncio.to_thread(graphs.build_now, epoch, force=force, progress=progress)
        except asyncio.CancelledError:  # the caller stopped waiting (Ctrl-C): stop the build too
            graphs.stop()
            raise
        except db.ERRORS as exc:  # the build reads the vectors on a connection of its own
            raise db.database_error(op, exc) from exc

    # -- relations (engines/sqlite/graph.py) ----------------------------------------------------------

    @operation("expand")
    async def expand(self, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of the memories the filter sees, from `seed_name`, up to `max_hops`."""
        req = validate.check_expand(request)
        return await self._read("expand", lambda r: graph.expand(r, req))

    # -- export and import (engines/sqlite/portable.py; api.records.PortableEngine) ---------------------

    async def export_records(self, *, vectors: bool) -> AsyncIterator[StoredRecord]:
        """Every version in the order written, forgotten ones as tombstones, from one snapshot; with
        `vectors`, each carries the vector it has."""
        if self._closed:
            raise Unavailable("export: the engine is closed")
        if self.path == ":memory:":
            for record in await self._db.read("export", lambda c: portable.read_all(c, vectors)):
                yield record
            return
        async for record in portable.export_file(self.path, vectors):
            yield record

    @operation("import")
    async def import_records(self, records: Sequence[StoredRecord]) -> ImportResult:
        """Write the versions exactly, in one transaction, rebuilding what derives from them; a version
        whose id is present is skipped. Vectors of another embedder are dropped (reembed fills them)."""
        checked = [check_record("import", r, f"records[{i}]") for i, r in enumerate(records)]
        if not checked:
            return ImportResult(0, 0)
        analyzer, context = self.analyzer, self.retrieval.context.enabled
        space = (self._space.name, self._space.dim) if self._space is not None else None
        return await self._run(
            "import",
            lambda c: db.in_write(c, lambda w: portable.import_batch(w, checked, analyzer, space, context)),
        )
