"""PostgresEngine: the server engine (a shared Postgres with pgvector; many processes and replicas).

Same contract and behaviour as the SQLite engine (ids, replays, versions, forget, purge, cursors, the
privacy rules); storage differs: a connection pool, row-level security per tenant on every table, advisory
locks that order writes per tenant (db.py), tsvector postings and pgvector search. Ranking is shared
with every engine (`tinymemory.retrieval.pipeline`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from types import TracebackType

import numpy as np
import psycopg

from tinymemory._version import __version__
from tinymemory.api import validate
from tinymemory.api.engine import EngineDescriptor
from tinymemory.api.errors import TinyMemoryError, Unavailable
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
from tinymemory.engines.cursors import CursorCodec, FetchCursor, ListCursor, fingerprint
from tinymemory.engines.embedder_choice import resolve_embedder
from tinymemory.engines.postgres import (
    db,
    graph,
    portable,
    reads,
    schema,
    search,
    semantic,
    store,
    tenancy,
)
from tinymemory.engines.postgres.db import Conn, Database
from tinymemory.engines.rows import to_us
from tinymemory.engines.telemetry import operation
from tinymemory.engines.versions import Floats, embed_new
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.answer import Answerer, ExtractiveAnswerer, answer_recall
from tinymemory.retrieval.config import DEFAULT_CONFIG, RetrievalConfig
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.temporal import with_event_range
from tinymemory.retrieval.text import Analyzer, analyzer_for


class PostgresEngine:
    """api.MemoryEngine over a Postgres database (with the pgvector extension).

    `dsn` is a libpq connection string or URI. The pool opens on first use (`min_size`..`max_size`
    connections); with `migrate` the schema is brought up to date then, else it must already be (see
    `upgrade`). The role should not be a superuser nor own BYPASSRLS: row-level security is the second
    wall between tenants.
    """

    def __init__(
        self,
        dsn: str,
        *,
        embedder: Embedder | str | None = "default",
        answerer: Answerer | None = None,
        analyzer: Analyzer | None = None,
        retrieval: RetrievalConfig | None = None,
        min_size: int = 1,
        max_size: int = 10,
        migrate: bool = True,
    ) -> None:
        if not isinstance(dsn, str) or not dsn.strip():
            raise TypeError("postgres: `dsn` must be a connection string")
        self.dsn = dsn
        self.embedder = resolve_embedder(embedder, "postgres")
        self.answerer: Answerer = answerer or ExtractiveAnswerer()
        self.retrieval = retrieval or DEFAULT_CONFIG
        self.analyzer = analyzer or analyzer_for(self.retrieval.analyzer)
        self.migrate = migrate
        self._min_size, self._max_size = min_size, max(min_size, max_size)
        modes: tuple[FetchMode, ...] = (FetchMode.LEXICAL,)
        if self.embedder is not None:
            modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
        self._descriptor = EngineDescriptor(
            name="postgres",
            version=f"{__version__}+schema.{schema.SCHEMA_VERSION}",
            fetch_modes=modes,
            embedder=self.embedder.name if self.embedder is not None else None,
        )
        self._space: store.VectorSpace | None = None
        self._search_space: semantic.Space | None = None
        if self.embedder is not None:
            self._space = store.VectorSpace(self.embedder.name, self.embedder.dim, self.embedder.embed)
            self._search_space = semantic.Space(self.embedder.name, self.embedder.dim)
        self._db: Database | None = None
        self._codec: CursorCodec | None = None
        self._opening = asyncio.Lock()
        self._closed = False
        self.last_semantic_plan: semantic.Plan | None = None  # for tests and diagnostics

    # -- plumbing -------------------------------------------------------------------------------------

    @property
    def descriptor(self) -> EngineDescriptor:
        return self._descriptor

    async def __aenter__(self) -> PostgresEngine:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def upgrade(self) -> tuple[int, int]:
        """Apply pending migrations (and this embedder's vector index); return (version before, after).

        Safe while other engines run or start: migrations take a database-wide advisory lock.
        """
        conn = await db.connect("upgrade", self.dsn)
        try:
            before = await self._migrate(conn)
        except TinyMemoryError:
            raise
        except psycopg.Error as exc:
            raise db.database_error("upgrade", exc) from exc
        finally:
            await conn.close()
        return before, schema.SCHEMA_VERSION

    async def _migrate(self, conn: Conn) -> int:
        before = await schema.migrate(conn)
        if self.embedder is not None:
            await schema.ensure_vector_index(conn, self.embedder.name, self.embedder.dim)
        return before

    async def _ready(self, op: str) -> Database:
        """The open pool: on first use, migrate (or check) the schema and read the cursor key."""
        if self._closed:
            raise Unavailable(f"{op}: the engine is closed")
        if self._db is not None:
            return self._db
        async with self._opening:
            if self._db is not None:
                return self._db
            conn = await db.connect(op, self.dsn)
            try:
                if self.migrate:
                    await self._migrate(conn)
                else:
                    await schema.check_version(conn)
                key = await db.load_cursor_key(conn)
            except TinyMemoryError:
                raise
            except psycopg.Error as exc:
                raise db.database_error(op, exc) from exc
            finally:
                await conn.close()
            database = Database(self.dsn, self._min_size, self._max_size)
            await database.open(op)
            if self._closed:  # closed while opening
                await database.close()
                raise Unavailable(f"{op}: the engine is closed")
            self._codec = CursorCodec(key)
            self._db = database
            return database

    def _cursors(self) -> CursorCodec:
        assert self._codec is not None  # set by _ready, which every reader runs first
        return self._codec

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._opening:
            if self._db is not None:
                await self._db.close()
                self._db = None

    async def store_bytes(self) -> int | None:
        """The database's size on disk (every table, index and tenant: what the service's metrics show)."""
        database = await self._ready("store_bytes")

        async def size(conn: Conn) -> int | None:
            cur = await conn.execute("SELECT pg_database_size(current_database())")
            row = await cur.fetchone()
            return None if row is None or row[0] is None else int(row[0])

        return await database.read("store_bytes", frozenset(), size)

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
        database = await self._ready(op)
        keys = [content_key(it) for it in items]
        tenants = tenancy.of_namespaces(it.meta.namespace for it in items)
        vectors = await self._embed_new(op, database, tenants, items, keys)
        if self.retrieval.temporal.extract_events:
            items = [with_event_range(it) for it in items]  # after the keys: identity is the content
        pending = [
            store.Pending(it, k, vectors.get(i)) for i, (it, k) in enumerate(zip(items, keys, strict=True))
        ]
        space, analyzer, context = self._space, self.analyzer, self.retrieval.context.enabled
        return await database.write(
            op, tenants, lambda c: store.write_items(c, pending, analyzer, space, context)
        )

    async def _embed_new(
        self, op: str, database: Database, tenants: frozenset[str], items: list[NewItem], keys: list[str]
    ) -> dict[int, Floats]:
        """Embed, in one batch and before the write locks, the items that will not be replays."""
        if self.embedder is None:
            return {}
        active = await database.read(op, tenants, lambda c: store.active_keys(c, keys))
        return await embed_new(op, self.embedder, items, keys, active)

    @operation("forget")
    async def forget(self, request: ForgetRequest) -> ForgetResult:
        req = validate.check_forget(request)
        database = await self._ready("forget")
        reach_tenants = tenancy.reach_tenants(req.reach)
        if req.ids is not None:
            ids = req.ids
            forgotten, skipped = await database.write(
                "forget", reach_tenants, lambda c: store.forget_ids(c, ids, req.reach)
            )
            return ForgetResult(tuple(forgotten), tuple(skipped))
        flt = req.filter
        assert flt is not None
        tenants = tenancy.both(tenancy.filter_tenants(flt), reach_tenants)
        done = await database.write("forget", tenants, lambda c: store.forget_filter(c, flt, req.reach))
        return ForgetResult(tuple(done), ())

    @operation("purge")
    async def purge(self, request: PurgeRequest) -> PurgeResult:
        if not isinstance(request, PurgeRequest):
            raise validate.fail("purge", "request", "must be a PurgeRequest")
        validate.check_reach("purge", "reach", request.reach)
        before = None
        if request.forgotten_before is not None:
            before = to_us(ensure_utc(request.forgotten_before, field="purge: `forgotten_before`"))
        database = await self._ready("purge")
        tenants = tenancy.reach_tenants(request.reach)
        purged = await database.write("purge", tenants, lambda c: store.purge(c, request.reach, before))
        return PurgeResult(purged)

    # -- reads ----------------------------------------------------------------------------------------

    @operation("get")
    async def get(self, request: GetRequest) -> GetResult:
        req = validate.check_get(request)
        database = await self._ready("get")
        return await database.read(
            "get", tenancy.reach_tenants(req.reach), lambda c: reads.get_items(c, req.ids, req.reach)
        )

    @operation("list")
    async def list(self, request: ListRequest) -> ListResult:
        req = validate.check_list(request)
        database = await self._ready("list")
        fp = fingerprint("list", req.filter)
        after = ListCursor.decode(self._cursors(), "list", req.cursor, fp) if req.cursor else None
        items, more = await database.read(
            "list",
            tenancy.filter_tenants(req.filter),
            lambda c: reads.list_page(c, req.filter, req.limit, after),
        )
        nxt = None
        if more and items:
            last = items[-1]
            assert last.meta.observed_at is not None
            nxt = ListCursor(to_us(last.meta.observed_at), last.id).encode(self._cursors(), fp)
        return ListResult(tuple(items), nxt)

    @operation("explore")
    async def explore(self, request: ExploreRequest) -> ExploreResult:
        req = validate.check_explore(request)
        database = await self._ready("explore")
        return await database.read(
            "explore",
            tenancy.filter_tenants(req.filter),
            lambda c: reads.explore(c, req.facet, req.filter, req.limit),
        )

    @operation("fetch")
    async def fetch(self, request: FetchRequest) -> FetchResult:
        req = validate.check_fetch(request, self._descriptor.fetch_modes)
        return await self._fetch("fetch", req)

    async def _fetch(self, op: str, req: FetchRequest) -> FetchResult:
        mode = req.mode or self._descriptor.default_mode()
        if mode is None:  # pragma: no cover - lexical is always served
            raise validate.fail(op, "mode", "no fetch mode is served")
        database = await self._ready(op)
        fp = fingerprint("fetch", req.query, mode.value, req.filter, req.time_hint)
        cur = FetchCursor.decode(self._cursors(), op, req.cursor, fp) if req.cursor else None
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
        # only the query is embedded on read, on a thread while the lexical candidates are read
        embedding: asyncio.Task[Floats] | None = None
        if mode is not FetchMode.LEXICAL:
            embedding = asyncio.create_task(self._embed_query(op, req.query))
        flt = req.filter

        async def run(conn: Conn) -> tuple[int, list[Hit], bool]:
            snapshot = cur.snapshot if cur is not None else await search.max_rowid(conn)
            # every score and weight below comes from the read's own reach (the first privacy rule)
            stats = await search.scope_stats(conn, self.analyzer, req.query, flt)
            lex: pipeline.Ranked = []
            if mode is not FetchMode.SEMANTIC:
                lex = await search.lexical(
                    conn,
                    self.analyzer,
                    req.query,
                    flt,
                    snapshot,
                    plan.want,
                    stats,
                    plan.postings_budget(),
                    cfg.context.weight,
                )
                if not lex and mode is FetchMode.LEXICAL and not self.analyzer.has_content_words(req.query):
                    lex = await search.recent(conn, flt, snapshot, plan.want)
            sem: pipeline.Ranked = []
            if embedding is not None:
                assert self._search_space is not None
                outcome = await semantic.semantic(
                    conn, self._search_space, await embedding, flt, snapshot, plan.want
                )
                self.last_semantic_plan = outcome.plan
                sem = outcome.ranked
            # what the pipeline reads beyond the scores, loaded only when a stage needs it
            derived = None
            if pipeline.wants_anchor(req.query, req.time_hint, cfg):
                anchor = await search.latest_observed(conn, flt, snapshot)
                derived = pipeline.derived_hint(req.query, anchor, cfg)
            light: dict[int, pipeline.Light] = {}
            if pipeline.needs_light(mode, req.time_hint, derived, cfg):
                rowids = list({r for r, _ in lex} | {r for r, _ in sem})
                light = await search.light_rows(conn, rowids, pipeline.light_detail(mode, cfg), snapshot)
            ranked = pipeline.rank(
                mode,
                lex,
                sem,
                light,
                stats=stats,
                cfg=cfg,
                query=req.query,
                analyzer=self.analyzer,
                hint=req.time_hint,
                derived=derived,
            )
            page, more = pipeline.page(ranked, plan.offset, req.limit)
            items = await reads.items_by_rowid(conn, [r for r, _ in page])
            return snapshot, [Hit(items[r], round(s, 6)) for r, s in page if r in items], more

        try:
            snapshot, hits, more = await database.read(op, tenancy.filter_tenants(flt), run)
        finally:
            if embedding is not None and not embedding.done():
                embedding.cancel()
        nxt = (
            FetchCursor(snapshot, plan.offset + req.limit, plan.pool).encode(self._cursors(), fp)
            if more
            else None
        )
        return FetchResult(tuple(hits), mode, nxt)

    async def _embed_query(self, op: str, text: str) -> Floats:
        assert self.embedder is not None
        embedder = self.embedder
        try:
            vec = await asyncio.to_thread(embedder.embed_query, text)
        except Exception as exc:
            raise Unavailable(f"{op}: the embedder failed ({exc})") from exc
        return np.asarray(vec, dtype=np.float32).reshape(-1)

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

    # -- relations ------------------------------------------------------------------------------------

    @operation("expand")
    async def expand(self, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of the memories the filter sees, from `seed_name`, up to `max_hops`."""
        req = validate.check_expand(request)
        database = await self._ready("expand")
        return await database.read(
            "expand", tenancy.filter_tenants(req.filter), lambda c: graph.expand(c, req)
        )

    # -- export and import (engines/postgres/portable.py; api.records.PortableEngine) -------------------

    async def export_records(self, *, vectors: bool) -> AsyncIterator[StoredRecord]:
        """Every version in the order written, forgotten ones as tombstones, from one snapshot (on a
        connection of its own, so writes go on meanwhile); with `vectors`, each carries the vector it has."""
        await self._ready("export")
        async for record in portable.export_records(self.dsn, vectors):
            yield record

    @operation("import")
    async def import_records(self, records: Sequence[StoredRecord]) -> ImportResult:
        """Write the versions exactly, in one transaction holding the write locks of their tenants,
        rebuilding what derives from them; a version whose id is present is skipped. Vectors of another
        embedder are dropped (re-embedding fills them)."""
        checked = [check_record("import", r, f"records[{i}]") for i, r in enumerate(records)]
        if not checked:
            return ImportResult(0, 0)
        database = await self._ready("import")
        analyzer, context = self.analyzer, self.retrieval.context.enabled
        space = (self._space.name, self._space.dim) if self._space is not None else None
        return await database.write(
            "import",
            portable.tenants_of(checked),
            lambda c: portable.import_batch(c, checked, analyzer, space, context),
        )
