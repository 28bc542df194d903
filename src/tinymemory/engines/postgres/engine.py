"""PostgresEngine: the server engine (a shared Postgres with pgvector; many processes and replicas).

The contract lives in the engine core (engines/core.py), shared with every engine; this module is
Postgres's storage under it: a connection pool, row-level security per tenant on every table, advisory
locks that order writes per tenant (db.py), tsvector postings and pgvector search.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

import psycopg

from tinymemory.api.errors import TinyMemoryError, Unavailable, Unsupported
from tinymemory.api.filters import Facet, FetchMode, MetaFilter
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.namespace import Reach
from tinymemory.api.records import ImportResult, StoredRecord
from tinymemory.api.relations import ExpandRequest, ExpandResult
from tinymemory.api.requests import ExploreResult, GetResult, StoreResult
from tinymemory.engines.core import Clock, StorageEngine
from tinymemory.engines.cursors import ListCursor
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
from tinymemory.engines.postgres.schema import SCHEMA_VERSION
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
from tinymemory.engines.versions import Floats, Pending
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.answer import Answerer
from tinymemory.retrieval.config import DEFAULT_CONFIG, RetrievalConfig
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.text import Analyzer

T = TypeVar("T")


class PostgresStorage(Storage):
    """engines.storage.Storage over a Postgres database with pgvector; see PostgresEngine for the options."""

    name = "postgres"
    schema = SCHEMA_VERSION

    def __init__(
        self,
        dsn: str,
        indexing: Indexing,
        *,
        min_size: int = 1,
        max_size: int = 10,
        migrate: bool = True,
    ) -> None:
        self.dsn = dsn
        self.embedder = embedder = indexing.embedder
        self.analyzer = indexing.analyzer
        self.context = indexing.context
        self.migrate = migrate
        self._min_size, self._max_size = min_size, max(min_size, max_size)
        self._space: store.VectorSpace | None = None
        self._search_space: semantic.Space | None = None
        if embedder is not None:
            self._space = store.VectorSpace(embedder.name, embedder.dim, embedder.embed)
            self._search_space = semantic.Space(embedder.name, embedder.dim)
        self._db: Database | None = None
        self._key: bytes | None = None
        self._opening = asyncio.Lock()
        self._closed = False
        self.last_semantic_plan: semantic.Plan | None = None  # for tests and diagnostics

    # -- plumbing -------------------------------------------------------------------------------------

    async def _on_own_connection(self, op: str, fn: Callable[[Conn], Awaitable[T]]) -> T:
        """`fn` on a connection outside the pool (migrations and schema reads); a driver error is the
        engine's own, naming `op`."""
        conn = await db.connect(op, self.dsn)
        try:
            return await fn(conn)
        except TinyMemoryError:
            raise
        except psycopg.Error as exc:
            raise db.database_error(op, exc) from exc
        finally:
            await conn.close()

    async def upgrade(self, op: str) -> tuple[int, int]:
        return await self._on_own_connection(op, self._migrate), schema.SCHEMA_VERSION

    async def stored_schema(self, op: str) -> int | None:
        """Read on a connection of its own: a pool opened without migrations refuses a database that
        is not current, and this is how an operator learns which it is."""
        return await self._on_own_connection(op, schema.schema_version)

    async def build_index(
        self, op: str, force: bool, progress: Callable[[int, int], None] | None
    ) -> IndexReport:
        raise Unsupported(
            f"{op}: a PostgreSQL store keeps its own pgvector index, created by `tinymemory db upgrade`;"
            " there is no graph file to build"
        )

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
            self._key = key
            self._db = database
            return database

    async def cursor_key(self, op: str) -> bytes:
        await self._ready(op)
        assert self._key is not None  # set by _ready
        return self._key

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._opening:
            if self._db is not None:
                await self._db.close()
                self._db = None

    async def store_bytes(self) -> int | None:
        database = await self._ready("store_bytes")

        async def size(conn: Conn) -> int | None:
            cur = await conn.execute("SELECT pg_database_size(current_database())")
            row = await cur.fetchone()
            return None if row is None or row[0] is None else int(row[0])

        return await database.read("store_bytes", frozenset(), size)

    # -- writes ---------------------------------------------------------------------------------------

    async def active_keys(self, op: str, items: Sequence[NewItem], keys: Sequence[str]) -> set[str]:
        database = await self._ready(op)
        tenants = tenancy.of_namespaces(it.meta.namespace for it in items)
        return await database.read(op, tenants, lambda c: store.active_keys(c, keys))

    async def write(self, op: str, pending: Sequence[Pending], now: datetime) -> list[StoreResult]:
        database = await self._ready(op)
        tenants = tenancy.of_namespaces(p.item.meta.namespace for p in pending)
        space, analyzer, context = self._space, self.analyzer, self.context
        return await database.write(
            op, tenants, lambda c: store.write_items(c, pending, analyzer, space, now, context)
        )

    async def forget_ids(
        self, op: str, ids: Sequence[str], reach: Reach | None, now: datetime
    ) -> tuple[list[str], list[str]]:
        database = await self._ready(op)
        tenants = tenancy.reach_tenants(reach)
        return await database.write(op, tenants, lambda c: store.forget_ids(c, ids, reach, now))

    async def forget_filter(self, op: str, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
        database = await self._ready(op)
        tenants = tenancy.both(tenancy.filter_tenants(flt), tenancy.reach_tenants(reach))
        return await database.write(op, tenants, lambda c: store.forget_filter(c, flt, reach, now))

    async def purge(self, op: str, reach: Reach | None, forgotten_before: int | None) -> int:
        database = await self._ready(op)
        tenants = tenancy.reach_tenants(reach)
        return await database.write(op, tenants, lambda c: store.purge(c, reach, forgotten_before))

    async def import_records(self, op: str, records: Sequence[StoredRecord]) -> ImportResult:
        database = await self._ready(op)
        analyzer, context = self.analyzer, self.context
        space = (self._space.name, self._space.dim) if self._space is not None else None
        return await database.write(
            op,
            portable.tenants_of(records),
            lambda c: portable.import_batch(c, records, analyzer, space, context),
        )

    # -- reads ----------------------------------------------------------------------------------------

    async def get(self, op: str, ids: Sequence[str], reach: Reach | None) -> GetResult:
        database = await self._ready(op)
        return await database.read(op, tenancy.reach_tenants(reach), lambda c: reads.get_items(c, ids, reach))

    async def list_page(
        self, op: str, flt: MetaFilter, limit: int, after: ListCursor | None
    ) -> tuple[list[MemoryItem], bool]:
        database = await self._ready(op)
        return await database.read(
            op, tenancy.filter_tenants(flt), lambda c: reads.list_page(c, flt, limit, after)
        )

    async def explore(self, op: str, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
        database = await self._ready(op)
        return await database.read(
            op, tenancy.filter_tenants(flt), lambda c: reads.explore(c, facet, flt, limit)
        )

    async def expand(self, op: str, request: ExpandRequest) -> ExpandResult:
        database = await self._ready(op)
        return await database.read(
            op, tenancy.filter_tenants(request.filter), lambda c: graph.expand(c, request)
        )

    async def fetch(self, op: str, query: CandidateQuery, ranking: Ranking) -> FetchPage:
        database = await self._ready(op)
        mode, flt = query.mode, query.filter
        # only the query is embedded on read, on a thread while the lexical candidates are read
        embedding: asyncio.Task[Floats] | None = None
        if query.embed_query is not None:
            embedding = asyncio.create_task(asyncio.to_thread(query.embed_query))

        async def run(conn: Conn) -> FetchPage:
            snapshot = query.snapshot if query.snapshot is not None else await search.max_rowid(conn)
            # every score and weight below comes from the read's own reach (the first privacy rule)
            stats = await search.scope_stats(conn, self.analyzer, query.text, flt)
            lex: pipeline.Ranked = []
            if mode is not FetchMode.SEMANTIC:
                lex = await search.lexical(
                    conn,
                    self.analyzer,
                    query.text,
                    flt,
                    snapshot,
                    query.want,
                    stats,
                    query.postings_budget,
                    query.context_weight,
                )
                if not lex and mode is FetchMode.LEXICAL and not self.analyzer.has_content_words(query.text):
                    lex = await search.recent(conn, flt, snapshot, query.want)
            sem: pipeline.Ranked = []
            if embedding is not None:
                assert self._search_space is not None
                outcome = await semantic.semantic(
                    conn, self._search_space, await embedding, flt, snapshot, query.want
                )
                self.last_semantic_plan = outcome.plan
                sem = outcome.ranked
            # what ranking reads beyond the scores, loaded only when it asks
            anchor = await search.latest_observed(conn, flt, snapshot) if ranking.wants_anchor else None
            window = ranking.window(flt, anchor)
            if window is not None:  # the days the query names, read again by each ranker
                if mode is not FetchMode.SEMANTIC:
                    windowed = await search.lexical(
                        conn, self.analyzer, query.text, window, snapshot, query.want, stats,
                        query.postings_budget, query.context_weight,
                    )  # fmt: skip
                    lex = pipeline.merged(lex, windowed)
                if embedding is not None:
                    assert self._search_space is not None
                    found = await semantic.semantic(
                        conn, self._search_space, await embedding, window, snapshot, query.want
                    )
                    sem = pipeline.merged(sem, found.ranked)
            detail = ranking.light_detail(anchor)
            light: dict[int, pipeline.Light] = {}
            if detail is not None:
                light = await search.light_rows(conn, candidate_rowids(lex, sem), detail, snapshot)
            # the `links` stage: who in the reach holds each rare name the best rows mention
            terms = ranking.link_terms(lex, sem, light, stats, anchor)
            holding = await search.link_holders(conn, terms, ranking.rare, ranking.link_rows, flt, snapshot)
            page, more = ranking.page(lex, sem, light, stats, anchor, holding)
            items = await reads.items_by_rowid(conn, [r for r, _ in page])
            return FetchPage(snapshot, page_hits(page, items, ranking.why), more)

        try:
            return await database.read(op, tenancy.filter_tenants(flt), run)
        finally:
            if embedding is not None and not embedding.done():
                embedding.cancel()

    async def export_records(self, vectors: bool) -> AsyncIterator[StoredRecord]:
        await self._ready("export")
        async for record in portable.export_records(self.dsn, vectors):
            yield record


class PostgresEngine(StorageEngine):
    """The engine core (engines/core.py) over a Postgres database (with the pgvector extension).

    `dsn` is a libpq connection string or URI. The pool opens on first use (`min_size`..`max_size`
    connections); with `migrate` the schema is brought up to date then, else it must already be (see
    `upgrade`). The role should not be a superuser nor own BYPASSRLS: row-level security is the second
    wall between tenants. `clock` (default: the system's UTC time) stamps stores and forgets.
    """

    storage: PostgresStorage

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
        clock: Clock | None = None,
    ) -> None:
        if not isinstance(dsn, str) or not dsn.strip():
            raise TypeError("postgres: `dsn` must be a connection string")
        retrieval = retrieval or DEFAULT_CONFIG
        storage = PostgresStorage(
            dsn,
            Indexing.choose("postgres", embedder, analyzer, retrieval),
            min_size=min_size,
            max_size=max_size,
            migrate=migrate,
        )
        super().__init__(storage, answerer=answerer, retrieval=retrieval, clock=clock)
        self.dsn = dsn
        self.migrate = migrate

    @property
    def last_semantic_plan(self) -> semantic.Plan | None:
        """How the last semantic search met its filter (for tests and diagnostics)."""
        return self.storage.last_semantic_plan

    async def upgrade(self, *, op: str = "upgrade") -> tuple[int, int]:
        """Apply pending migrations (and this embedder's vector index); return (version before, after).

        Safe while other engines run or start: migrations take a database-wide advisory lock.
        """
        return await super().upgrade(op=op)

    async def store_bytes(self) -> int | None:
        """The database's size on disk (every table, index and tenant: what the service's metrics show)."""
        return await self.storage.store_bytes()
