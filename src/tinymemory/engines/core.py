"""StorageEngine: the whole `api.MemoryEngine` contract, once, over any `Storage` (engines/storage.py).

Requests are checked, timed and logged here (telemetry), cursors sealed and opened, stores keyed,
embedded outside any lock and stamped by the engine's clock, a fetch planned, its candidates handed to
the retrieval pipeline once and its page returned, recall answered. Storage only keeps rows; SQLite
and Postgres are two storages, and a new engine is one more (docs/architecture/engines.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from tinymemory._version import __version__
from tinymemory.api import validate
from tinymemory.api.closing import AsyncClosing
from tinymemory.api.engine import EngineDescriptor
from tinymemory.api.errors import Unavailable
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
from tinymemory.api.timeutil import ensure_utc, utcnow
from tinymemory.engines.cursors import CursorCodec, FetchCursor, ListCursor, fingerprint
from tinymemory.engines.rows import to_us
from tinymemory.engines.storage import CandidateQuery, FetchPage, IndexReport, Storage
from tinymemory.engines.telemetry import operation
from tinymemory.engines.versions import Floats, Pending, embeds_inline, start_embed_new
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.answer import Answerer, ExtractiveAnswerer, answer_recall
from tinymemory.retrieval.config import DEFAULT_CONFIG, RetrievalConfig
from tinymemory.retrieval.decompose import sub_questions
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.query import QueryAnalysis
from tinymemory.retrieval.temporal import matches_hint, with_event_range

Clock = Callable[[], datetime]
"""What an engine takes the time from (timezone-aware UTC); tests pass one they move by hand."""

__all__ = ["Clock", "StorageEngine"]


def _scored(hit: Hit, score: float) -> Hit:
    """`hit` at its score in a merged order (raised there when an explicit hint matched it)."""
    if score == hit.score:
        return hit
    return replace(hit, score=score, why=None if hit.why is None else replace(hit.why, score=score))


def query_vector(op: str, embedder: Embedder, text: str) -> Floats:
    """The query's embedding as one float32 row (blocking); an embedder that fails is Unavailable."""
    try:
        vec = embedder.embed_query(text)
    except Exception as exc:
        raise Unavailable(f"{op}: the embedder failed ({exc})") from exc
    return np.asarray(vec, dtype=np.float32).reshape(-1)


class StorageEngine(AsyncClosing):
    """api.MemoryEngine over a `Storage`. Engines subclass it only to open their storage by name
    (SqliteEngine, PostgresEngine) and to add maintenance of their own; behaviour lives here.

    `clock` (default: the system's UTC time) stamps stores without `observed_at` and forgets.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        answerer: Answerer | None = None,
        retrieval: RetrievalConfig | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.storage = storage
        self.embedder = storage.embedder
        self.analyzer = storage.analyzer
        self.answerer: Answerer = answerer or ExtractiveAnswerer()
        self.retrieval = retrieval or DEFAULT_CONFIG
        self.clock: Clock = clock or utcnow
        modes: tuple[FetchMode, ...] = (FetchMode.LEXICAL,)
        if self.embedder is not None:
            modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
        self._descriptor = EngineDescriptor(
            name=storage.name,
            version=f"{__version__}+schema.{storage.schema}",
            fetch_modes=modes,
            embedder=self.embedder.name if self.embedder is not None else None,
        )
        self._codec: CursorCodec | None = None

    # -- plumbing -------------------------------------------------------------------------------------

    @property
    def descriptor(self) -> EngineDescriptor:
        return self._descriptor

    async def close(self) -> None:
        """Close the storage; writes already acknowledged are durable. Idempotent."""
        await self.storage.close()

    async def _cursors(self, op: str) -> CursorCodec:
        """The codec of the storage's cursor key, read (or created) on first need."""
        if self._codec is None:
            self._codec = CursorCodec(await self.storage.cursor_key(op))
        return self._codec

    def _now(self) -> datetime:
        return ensure_utc(self.clock(), field="clock")

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
        embedding: Awaitable[dict[int, Floats]] | None = None
        if self.embedder is not None:  # embed, in one batch and before any lock, what will not replay
            # an embedder quicker than a read embeds replays too rather than asking which are replays
            inline = embeds_inline(self.embedder, len(items))
            active = set() if inline else await self.storage.active_keys(op, items, keys)
            embedding = start_embed_new(op, self.embedder, items, keys, active)
        try:  # the date reader runs on the loop while a worker thread embeds (unless versions.embeds_here)
            if self.retrieval.temporal.extract_events:
                items = [with_event_range(it) for it in items]  # after the keys: identity is the content
        finally:
            vectors = {} if embedding is None else await embedding
        pending = [Pending(it, k, vectors.get(i)) for i, (it, k) in enumerate(zip(items, keys, strict=True))]
        return await self.storage.write(op, pending, self._now())

    @operation("forget")
    async def forget(self, request: ForgetRequest) -> ForgetResult:
        req = validate.check_forget(request)
        if req.ids is not None:
            forgotten, skipped = await self.storage.forget_ids("forget", req.ids, req.reach, self._now())
            return ForgetResult(tuple(forgotten), tuple(skipped))
        assert req.filter is not None
        done = await self.storage.forget_filter("forget", req.filter, req.reach, self._now())
        return ForgetResult(tuple(done), ())

    @operation("purge")
    async def purge(self, request: PurgeRequest) -> PurgeResult:
        if not isinstance(request, PurgeRequest):
            raise validate.fail("purge", "request", "must be a PurgeRequest")
        validate.check_reach("purge", "reach", request.reach)
        before = None
        if request.forgotten_before is not None:
            before = to_us(ensure_utc(request.forgotten_before, field="purge: `forgotten_before`"))
        return PurgeResult(await self.storage.purge("purge", request.reach, before))

    @operation("import")
    async def import_records(self, records: Sequence[StoredRecord]) -> ImportResult:
        """Write the versions exactly, in one transaction, rebuilding what derives from them; a version
        whose id is present is skipped. Vectors of another embedder are dropped (re-embedding fills them)."""
        checked = [check_record("import", r, f"records[{i}]") for i, r in enumerate(records)]
        if not checked:
            return ImportResult(0, 0)
        return await self.storage.import_records("import", checked)

    # -- reads ----------------------------------------------------------------------------------------

    @operation("get")
    async def get(self, request: GetRequest) -> GetResult:
        req = validate.check_get(request)
        return await self.storage.get("get", req.ids, req.reach)

    @operation("list")
    async def list(self, request: ListRequest) -> ListResult:
        req = validate.check_list(request)
        fp = fingerprint("list", req.filter)
        after = ListCursor.decode(await self._cursors("list"), "list", req.cursor, fp) if req.cursor else None
        items, more = await self.storage.list_page("list", req.filter, req.limit, after)
        nxt = None
        if more and items:
            last = items[-1]
            assert last.meta.observed_at is not None
            nxt = ListCursor(to_us(last.meta.observed_at), last.id).encode(await self._cursors("list"), fp)
        return ListResult(tuple(items), nxt)

    @operation("explore")
    async def explore(self, request: ExploreRequest) -> ExploreResult:
        req = validate.check_explore(request)
        return await self.storage.explore("explore", req.facet, req.filter, req.limit)

    @operation("fetch")
    async def fetch(self, request: FetchRequest) -> FetchResult:
        req = validate.check_fetch(request, self._descriptor.fetch_modes)
        return await self._fetch("fetch", req)

    async def _fetch(self, op: str, req: FetchRequest, *, pages: bool = True) -> FetchResult:
        """One page; with `pages` False (recall reads one page and returns no cursor) no cursor is sealed."""
        mode = req.mode or self._descriptor.default_mode()
        if mode is None:  # pragma: no cover - lexical is always served
            raise validate.fail(op, "mode", "no fetch mode is served")
        fp = ""  # the request's fingerprint, only when a cursor is opened or sealed
        cur = None
        if req.cursor:
            fp = fingerprint("fetch", req.query, mode.value, req.filter, req.time_hint)
            cur = FetchCursor.decode(await self._cursors(op), op, req.cursor, fp)
        cfg = self.retrieval
        analysis = QueryAnalysis.of(req.query, self.analyzer)  # once: every stage below reads this
        plan = pipeline.FetchPlan.make(
            mode,
            analysis,
            req.limit,
            req.time_hint,
            cfg,
            cursor_pool=cur.pool if cur is not None else None,
            cursor_offset=cur.offset if cur is not None else 0,
        )
        query = CandidateQuery(
            mode=mode,
            text=req.query,
            filter=req.filter,
            snapshot=cur.snapshot if cur is not None else None,
            want=plan.want,
            postings_budget=plan.postings_budget(),
            context_weight=cfg.context.weight,
            embed_query=self._query_embedding(op, mode, req.query),
        )
        parts = sub_questions(req.query) if cfg.decompose.enabled and plan.pooled else ()
        if parts:
            page = await self._decomposed(op, req, query, plan, analysis, parts)
        else:
            ranking = pipeline.FetchRanking(
                mode, analysis, req.time_hint, plan.offset, req.limit, cfg, self.analyzer, req.explain
            )
            page = await self.storage.fetch(op, query, ranking)
        nxt = None
        if page.more and pages:
            fp = fp or fingerprint("fetch", req.query, mode.value, req.filter, req.time_hint)
            nxt = FetchCursor(page.snapshot, plan.offset + req.limit, plan.pool).encode(
                await self._cursors(op), fp
            )
        return FetchResult(tuple(page.hits), mode, nxt)

    def _query_embedding(self, op: str, mode: FetchMode, text: str) -> Callable[[], Floats] | None:
        """How a read embeds its query text (None for a lexical read)."""
        if mode is FetchMode.LEXICAL:
            return None
        assert self.embedder is not None  # check_fetch serves semantic modes only with one
        embedder = self.embedder
        return lambda: query_vector(op, embedder, text)

    async def _decomposed(
        self,
        op: str,
        req: FetchRequest,
        query: CandidateQuery,
        plan: pipeline.FetchPlan,
        analysis: QueryAnalysis,
        parts: Sequence[str],
    ) -> FetchPage:
        """The `decompose` stage: the whole question and each part read over the same filter and
        snapshot, each ranked over its own pool in full, merged by best score (pipeline.merge_reads),
        then paged; a later page reads the same snapshot and so merges the same order."""
        mode, cfg = query.mode, self.retrieval

        def ranking(text: str | QueryAnalysis) -> pipeline.FetchRanking:
            return pipeline.FetchRanking(
                mode, text, req.time_hint, 0, plan.pool, cfg, self.analyzer, req.explain
            )

        whole = await self.storage.fetch(op, query, ranking(analysis))
        reads = await asyncio.gather(
            *(
                self.storage.fetch(
                    op,
                    replace(
                        query,
                        text=part,
                        snapshot=whole.snapshot,
                        embed_query=self._query_embedding(op, mode, part),
                    ),
                    ranking(QueryAnalysis.of(part, self.analyzer)),
                )
                for part in parts
            )
        )
        hits = [whole.hits, *(read.hits for read in reads)]
        best: dict[str, Hit] = {}  # each memory's hit of its best score (the first read's on a tie)
        for read in hits:
            for hit in read:
                if hit.item.id not in best or hit.score > best[hit.item.id].score:
                    best[hit.item.id] = hit
        hint = req.time_hint
        hinted = None if hint is None else {i for i, h in best.items() if matches_hint(h.item, hint)}
        order = pipeline.merge_reads(
            [[(h.item.id, h.score) for h in read] for read in hits],
            None if hinted is None else hinted.__contains__,
        )
        end = plan.offset + req.limit
        page = [_scored(best[key], score) for key, score in order[plan.offset : end]]
        if req.explain:  # a hit's signals are its own read's; its rank is its place in the merged order
            page = [
                h if h.why is None else replace(h, why=replace(h.why, rank=plan.offset + i + 1))
                for i, h in enumerate(page)
            ]
        return FetchPage(whole.snapshot, page, len(order) > end)

    @operation("recall")
    async def recall(self, request: RecallRequest) -> RecallResult:
        req = validate.check_recall(request, self._descriptor.fetch_modes)
        fetched = await self._fetch(
            "recall",
            FetchRequest(
                query=req.question, mode=req.mode, filter=req.filter, limit=req.limit, time_hint=req.time_hint
            ),
            pages=False,
        )
        return await answer_recall(self.answerer, req.question, fetched.hits, req.instructions)

    # -- maintenance (the CLI's `db` commands; engines/storage.py) -------------------------------------

    @property
    def schema(self) -> int:
        """The schema version this tinymemory writes for the engine's storage."""
        return self.storage.schema

    async def stored_schema(self, *, op: str = "stored_schema") -> int | None:
        """The schema version the stored data has (read only, never migrates); None before any write.
        `op` names the caller in errors (the CLI passes its command)."""
        return await self.storage.stored_schema(op)

    async def check_integrity(self, *, op: str = "check_integrity") -> bool:
        """Look for damage in the stored bytes (a SQLite file's `quick_check`), raising Unavailable
        when there is some; False when the engine has no check of its own."""
        return await self.storage.check_integrity(op)

    async def upgrade(self, *, op: str = "upgrade") -> tuple[int, int]:
        """Apply pending migrations; return (version before, after). Safe to run again."""
        return await self.storage.upgrade(op)

    async def build_index(
        self,
        *,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
        op: str = "build_index",
    ) -> IndexReport:
        """Build the vector index reads use now, or bring the saved one up to date, and wait for it,
        so a large store is ready before it serves. `force` starts from scratch; `progress(added,
        to_add)` runs as it goes, on the build's thread."""
        return await self.storage.build_index(op, force, progress)

    # -- relations, export ----------------------------------------------------------------------------

    @operation("expand")
    async def expand(self, request: ExpandRequest) -> ExpandResult:
        """Walk the relations of the memories the filter sees, from `seed_name`, up to `max_hops`."""
        req = validate.check_expand(request)
        return await self.storage.expand("expand", req)

    async def export_records(self, *, vectors: bool) -> AsyncIterator[StoredRecord]:
        """Every version in the order written, forgotten ones as tombstones, from one snapshot; with
        `vectors`, each carries the vector it has."""
        async for record in self.storage.export_records(vectors):
            yield record
