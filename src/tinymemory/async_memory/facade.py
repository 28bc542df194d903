"""`AsyncMemory`: the memory facade for async hosts, and the logic the sync `Memory` runs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, tzinfo
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinymemory.api import (
    MAX_LIMIT,
    EngineDescriptor,
    ExpandRequest,
    ExpandResult,
    ExploreRequest,
    ExploreResult,
    Facet,
    FetchMode,
    FetchRequest,
    FetchResult,
    ForgetRequest,
    ForgetResult,
    GetRequest,
    GetResult,
    ItemKind,
    ListRequest,
    ListResult,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    PurgeResult,
    Reach,
    RecallRequest,
    RecallResult,
    StoreResult,
    TimeHint,
)
from tinymemory.api.closing import AsyncClosing
from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.validate import (
    MAX_FIELD_CHARS,
    check_bool,
    check_fetch,
    check_filter,
    check_limit,
    check_query,
    check_unicode,
    fail,
)
from tinymemory.async_memory.arguments import (
    as_mode,
    as_namespace,
    as_strings,
    check_name,
    check_opening,
    checked,
    meta_filter,
    new_item,
    renamed,
)
from tinymemory.async_memory.scope import default_reach, lineage_scopes
from tinymemory.async_memory.tools import TOOLSETS, AsyncTools, memory_toolset, policy_toolset

if TYPE_CHECKING:
    from tinymemory.context import Brief, ContextPack
    from tinymemory.lifecycle import Brain, IngestReport
    from tinymemory.policy import MemoryPolicy

DEFAULT_SOURCE = "docs"
BRIEF_TOKENS = 1_500  # context.md's default budget (context.DEFAULT_BUDGET_TOKENS)
PACK_TOKENS = 800  # a holistic-recall pack's default budget (the agent lifecycle's pre-turn pack)
# What a holistic-recall pack holds unless `kinds` is given: whole documents are left out, as in the
# agent lifecycle's pre-turn pack (lifecycle/agent.py), since their chunks carry the same text, better cut.
PACK_KINDS = (ItemKind.LEARNING, ItemKind.CHUNK, ItemKind.SUMMARY, ItemKind.CONVERSATION)
MAX_BUDGET_TOKENS = 1_000_000
TEXT_MEDIA_TYPES = ("text/markdown", "text/plain", "text/html")


def _check_field(op: str, field: str, value: str) -> None:
    """A document's name or title as the store will hold it: refused here, under the caller's names,
    rather than by the store's read or write in its own words."""
    check_unicode(op, field, value)
    if len(value) > MAX_FIELD_CHARS:
        raise fail(op, field, f"is longer than {MAX_FIELD_CHARS} characters")


class AsyncMemory(AsyncClosing):
    """Async access to one memory store, placed at one namespace: the same methods as `Memory`, as
    coroutines, for hosts that already run an event loop.

    >>> async with AsyncMemory("./mem.db", namespace="team:acme/agent:writer") as mem:
    ...     await mem.store("The user prefers dark roast coffee", tags=["preference"])
    ...     hits = (await mem.fetch("what coffee does the user like")).hits

    Errors (all from `tinymemory.api.errors`): `InvalidRequest` for any bad, missing or unknown
    argument, naming the method and the field; `Unavailable` when the database or the embedder fails
    (retrying may help); `Conflict` for a database file written by a newer tinymemory. Calling a
    closed AsyncMemory raises RuntimeError.
    """

    @checked("memory")
    def __init__(
        self,
        path: str | Path | None = None,
        *,
        namespace: str | Namespace = "",
        reach: Reach | None = None,
        engine: MemoryEngine | None = None,
        embedder: Any = "default",
    ) -> None:
        """Open `path` (a SQLite file or a `postgresql://` URL; None is the default file) unless an
        `engine` is given.

        Raises InvalidRequest for a malformed namespace, a reach that is not a `Reach`, or an
        embedder name other than "default".
        """
        self._namespace = as_namespace(namespace)
        if reach is not None and not isinstance(reach, Reach):
            raise fail("memory", "reach", "must be a Reach (see Reach.of, Reach.subtree) or None")
        check_opening("memory", engine, embedder)
        self._reach_given = reach is not None
        self._reach = reach if reach is not None else default_reach(self._namespace)
        if engine is None:
            from tinymemory.engines import open_engine

            engine = open_engine(path, embedder=embedder)
        self._engine: MemoryEngine = engine
        self._closed = False

    # -- what this facade is bound to --------------------------------------------------------------
    @property
    def namespace(self) -> Namespace:
        """Where every write lands."""
        return self._namespace

    @property
    def reach(self) -> Reach:
        """What every read, forget and purge is confined to."""
        return self._reach

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath, for what the facade does not wrap."""
        return self._engine

    @property
    def descriptor(self) -> EngineDescriptor:
        """The engine's name, version, fetch modes and embedder."""
        return self._engine.descriptor

    @property
    def _live(self) -> MemoryEngine:
        """The engine, or RuntimeError once this facade is closed."""
        if self._closed:
            raise RuntimeError("tinymemory: this Memory is closed")
        return self._engine

    # -- lifecycle -------------------------------------------------------------------------------
    async def close(self) -> None:
        """Close the engine (its connections and files). Calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        await self._engine.close()

    # -- writes ----------------------------------------------------------------------------------
    @checked("item")
    def item(
        self,
        /,
        text: str,
        *,
        kind: str | ItemKind = ItemKind.LEARNING,
        tags: Iterable[str] = (),
        confidence: float | None = None,
        learning_kind: str | None = None,
        title: str | None = None,
        about: tuple[str, str] | None = None,
        thread_id: str | None = None,
        source: str | None = None,
        observed_at: datetime | None = None,
        **meta: Any,
    ) -> NewItem:
        """Build a NewItem placed at this facade's namespace (extra keyword args go to ItemMeta), for
        `store_many`.

        Raises InvalidRequest (`item: ...`) for an unknown keyword, a bad kind, tags given as one
        string, or an `about` that is not a (kind, key) pair; the rest is checked when it is stored.
        """
        return self._new_item(
            "item",
            text,
            kind=kind,
            tags=tags,
            confidence=confidence,
            learning_kind=learning_kind,
            title=title,
            about=about,
            thread_id=thread_id,
            source=source,
            observed_at=observed_at,
            **meta,
        )

    def _new_item(self, op: str, text: str, **kwargs: Any) -> NewItem:
        return new_item(op, self._namespace, text, **kwargs)

    @checked("store")
    async def store(self, /, text: str, **kwargs: Any) -> StoreResult:
        """Store one memory; storing the same memory again is a replay (same id, replayed=True).

        Takes `item()`'s keywords. Raises InvalidRequest (`store: ...`) for bad arguments or an
        invalid item, Unavailable when the database or embedder fails; nothing is written on error.
        """
        return await self._live.store(self._new_item("store", text, **kwargs))

    @checked("store_many")
    async def store_many(self, items: Sequence[NewItem | str]) -> list[StoreResult]:
        """Store in one transaction, embeddings batched; all or nothing. Texts become learnings.

        Raises InvalidRequest ("store_many: `items[i]...`") when any item is bad, before anything
        is written; Unavailable when the database or embedder fails (the whole batch rolls back).
        """
        if isinstance(items, str | bytes):
            raise fail("store_many", "items", "must be a list of texts or NewItems, not one string")
        if not isinstance(items, Iterable):
            raise fail("store_many", "items", f"must be a list, got {type(items).__name__}")
        listed = list(items)
        built = [self._new_item("store_many", i) if isinstance(i, str) else i for i in listed]
        return await self._live.store_many(built)

    @checked("forget")
    async def forget(self, /, ids: Sequence[str] | None = None, **filter_fields: Any) -> ForgetResult:
        """Soft-delete by ids or by a non-empty filter, confined to this facade's reach.

        Raises InvalidRequest (`forget: ...`) for bad ids, an unknown filter field, or neither ids
        nor a filter (the reach alone would forget everything in it).
        """
        if ids is not None:
            req = ForgetRequest(ids=as_strings("forget", "ids", ids, "ids"), reach=self._reach)
        else:
            flt = self._filter("forget", filter_fields)
            if all(name == "reach" for name in flt.set_fields()):
                raise InvalidRequest(
                    "forget: `filter` must set at least one field when no ids are given"
                    " (the reach alone would forget everything in it)"
                )
            req = ForgetRequest(filter=flt)
        return await self._live.forget(req)

    @checked("purge")
    async def purge(self) -> PurgeResult:
        """Permanently delete forgotten memory within this facade's reach, with what it contributed."""
        return await self._live.purge(PurgeRequest(reach=self._reach))

    # -- reads -----------------------------------------------------------------------------------
    @checked("fetch")
    async def fetch(
        self,
        /,
        query: str,
        *,
        mode: str | FetchMode | None = None,
        limit: int = 10,
        cursor: str | None = None,
        time_hint: TimeHint | None = None,
        explain: bool = False,
        **filter_fields: Any,
    ) -> FetchResult:
        """Rank memory for `query`; extra keywords are MetaFilter fields. With `explain`, each hit
        carries `why`: the signals behind its score (lexical, semantic, reranker, time, final).

        Raises InvalidRequest (`fetch: ...`) for a bad query, mode, limit, cursor, hint or filter field.
        """
        req = FetchRequest(
            query=query,
            mode=as_mode("fetch", mode),
            filter=self._filter("fetch", filter_fields),
            limit=limit,
            cursor=cursor,
            time_hint=time_hint,
            explain=explain,
        )
        return await self._live.fetch(req)

    @checked("recall")
    async def recall(self, /, question: str, *, limit: int = 10, **filter_fields: Any) -> RecallResult:
        """Answer `question` from memory with citations (the engine's answerer). Raises InvalidRequest
        (`recall: ...`) for bad arguments, Unavailable when the answerer or embedder fails."""
        req = RecallRequest(question=question, filter=self._filter("recall", filter_fields), limit=limit)
        return await self._live.recall(req)

    @checked("list")
    async def list(
        self, /, *, limit: int = 10, cursor: str | None = None, **filter_fields: Any
    ) -> ListResult:
        """Newest first. Raises InvalidRequest (`list: ...`) for a bad limit, cursor or filter field."""
        req = ListRequest(filter=self._filter("list", filter_fields), limit=limit, cursor=cursor)
        return await self._live.list(req)

    @checked("get")
    async def get(self, ids: Sequence[str]) -> GetResult:
        """Read by id; ids outside the reach come back as missing. Raises InvalidRequest for bad ids."""
        req = GetRequest(ids=as_strings("get", "ids", ids, "ids"), reach=self._reach)
        return await self._live.get(req)

    @checked("explore")
    async def explore(self, /, facet: str | Facet, *, limit: int = 10, **filter_fields: Any) -> ExploreResult:
        """Count memory by a facet. Raises InvalidRequest (`explore: ...`) for a bad facet or filter."""
        try:
            fac = Facet(facet)
        except (ValueError, TypeError):
            choices = ", ".join(f.value for f in Facet)
            raise fail("explore", "facet", f"`{echo(facet)}` is not a facet (one of: {choices})") from None
        req = ExploreRequest(facet=fac, filter=self._filter("explore", filter_fields), limit=limit)
        return await self._live.explore(req)

    @checked("expand")
    async def expand(
        self,
        /,
        seed_name: str,
        *,
        relation_types: Iterable[str] = (),
        max_hops: int = 1,
        limit: int = 10,
        **filter_fields: Any,
    ) -> ExpandResult:
        """Memories linked to the entity `seed_name` by their relations, 1 or 2 hops away, within this
        facade's reach; extra keywords are MetaFilter fields (`as_of` walks the graph of that instant).

        Raises InvalidRequest (`expand: ...`) for a bad seed name, relation type, max_hops, limit or
        filter field.
        """
        types = (
            (relation_types,)
            if isinstance(relation_types, str)
            else as_strings("expand", "relation_types", relation_types)
        )
        req = ExpandRequest(
            seed_name=seed_name,
            relation_types=types,
            max_hops=max_hops,
            filter=self._filter("expand", filter_fields),
            limit=limit,
        )
        return await self._live.expand(req)

    # -- context for a model -----------------------------------------------------------------------
    @checked("context_md")
    async def context_md(
        self,
        *,
        budget_tokens: int = BRIEF_TOKENS,
        briefs: Sequence[Brief] | None = None,
        learnings_limit: int = 50,
    ) -> ContextPack:
        """context.md: the brief a host injects at the start of a session, read within this reach.

        One ranked read per brief (by default: about the user, active work, preferences and standing
        instructions, recent important events), then the stored learnings newest and most confident
        first, fitted to `budget_tokens` (four characters a token). Returns a `ContextPack`:
        `.markdown` (also `str(pack)`) is the document, `.refs` the ids it cites; an empty store
        gives "". Raises InvalidRequest (`context_md: ...`) for a bad budget, brief or limit.
        """
        from tinymemory.context import DEFAULT_BRIEFS, ContextSpec, compile

        op = "context_md"
        check_limit(op, budget_tokens, field="budget_tokens", maximum=MAX_BUDGET_TOKENS)
        check_limit(op, learnings_limit, field="learnings_limit", maximum=MAX_LIMIT)
        chosen = DEFAULT_BRIEFS if briefs is None else self._briefs(op, briefs)
        spec = ContextSpec(
            briefs=chosen, budget_tokens=budget_tokens, reach=self._reach, learnings_limit=learnings_limit
        )
        return await compile(self._live, spec)

    @staticmethod
    def _briefs(op: str, briefs: object) -> tuple[Brief, ...]:
        """Each brief checked here: context.md skips a brief whose read fails, which would hide a typo."""
        from tinymemory.context import Brief

        listed = as_strings(op, "briefs", briefs, "Briefs")
        for i, brief in enumerate(listed):
            if not isinstance(brief, Brief):
                raise fail(op, f"briefs[{i}]", f"must be a Brief, got {type(brief).__name__}")
            check_query(op, f"briefs[{i}].question", brief.question)
            check_limit(op, brief.limit, field=f"briefs[{i}].limit")
            check_filter(op, brief.filter, field=f"briefs[{i}].filter")
        return listed

    @checked("recall_context")
    async def recall_context(
        self,
        /,
        query: str,
        *,
        budget_tokens: int = PACK_TOKENS,
        limit: int = 10,
        mode: str | FetchMode | None = None,
        time_hint: TimeHint | None = None,
        **filter_fields: Any,
    ) -> ContextPack:
        """Holistic recall: what to show a model before it answers `query`, as one budgeted pack.

        One read per scope, fused by rank and deduplicated: with the default reach the scopes are this
        namespace, then each ancestor (each with the documents ingested there), every step up weighing
        0.7 times the one below; with an explicit reach, that reach is the one scope. Sections group
        learnings, document chunks and conversation; the lowest-ranked lines go first when over
        `budget_tokens`. Extra keywords are MetaFilter fields; without `kinds`, whole documents are
        left out (their chunks carry the same text). Raises InvalidRequest
        (`recall_context: ...`) for a bad query, budget, limit, mode, hint or filter field.
        """
        from tinymemory.context import recall

        op = "recall_context"
        given = filter_fields if "kinds" in filter_fields else {"kinds": PACK_KINDS, **filter_fields}
        req = check_fetch(
            FetchRequest(
                query=query,
                mode=as_mode(op, mode),
                filter=self._filter(op, given),
                limit=limit,
                time_hint=time_hint,
            ),
            self._live.descriptor.fetch_modes,
            op,
        )
        check_limit(op, budget_tokens, field="budget_tokens", maximum=MAX_BUDGET_TOKENS)
        # the scopes' union is exactly this facade's reach; `recall` reads a Reach as one scope
        scopes = self._reach if self._reach_given else lineage_scopes(self._namespace)
        return await recall(
            self._live,
            req.query,
            scopes,
            budget_tokens=budget_tokens,
            limit=req.limit,
            filter=req.filter,
            mode=req.mode,
            time_hint=req.time_hint,
        )

    # -- the brain: documents ----------------------------------------------------------------------
    @checked("ingest")
    async def ingest(
        self, path: str | PathLike[str], *, source: str = DEFAULT_SOURCE, follow_symlinks: bool = False
    ) -> IngestReport:
        """Ingest a file or a folder (markdown, text, html; pdf with the pdf extra) into the brain.

        Documents land under `<namespace>/memory:brain/source:<source>`, the place `tinymemory ingest
        --namespace ... --source ...` uses, which this facade's default reach reads. Each document
        is stored whole and in chunks; ingesting it again is skipped when unchanged and replaces its
        chunks when changed. A folder is walked recursively (hidden files skipped) and one unreadable
        file is reported in `failed` without stopping the others. A symbolic link inside the folder
        that leads outside it (or to nothing) is skipped and reported in `failed` too, unless
        `follow_symlinks`; `path` itself may be a link. Raises InvalidRequest (`ingest: ...`) for a
        path that does not exist or a bad source name.
        """
        op = "ingest"
        if not isinstance(path, str | PathLike) or not str(path).strip():
            raise fail(op, "path", "must be a file or folder path")
        check_bool(op, "follow_symlinks", follow_symlinks)
        target = Path(path)
        try:
            exists = target.exists()
        except OSError as exc:  # a name too long for the file system, a loop of links, ...
            raise fail(op, "path", f"`{echo(str(target))}` cannot be read ({exc.strerror})") from None
        if not exists:
            raise fail(op, "path", f"`{echo(str(target))}` does not exist")
        brain = self._brain(op, source)
        with renamed(op, "brain ingest: ", "store: "):
            return await brain.ingest(target, source=source, follow_symlinks=follow_symlinks)

    @checked("ingest_text")
    async def ingest_text(
        self,
        text: str,
        *,
        name: str,
        source: str = DEFAULT_SOURCE,
        title: str | None = None,
        media_type: str = "text/markdown",
    ) -> IngestReport:
        """Ingest one document given as a string; `name` is its stable identity (a path-like name), so
        ingesting the same name again replaces or skips it as `ingest` does for a file.

        Raises InvalidRequest (`ingest_text: ...`) for an empty text or name, a title that is not a
        string, a media type other than text/markdown, text/plain or text/html, or a bad source name.
        """
        op = "ingest_text"
        if not isinstance(text, str) or not text.strip():
            raise fail(op, "text", "must be a non-empty string")
        check_unicode(op, "text", text)
        if not isinstance(name, str) or not name.strip():
            raise fail(op, "name", "must be a non-empty string")
        _check_field(op, "name", name)
        if title is not None:
            if not isinstance(title, str):
                raise fail(op, "title", f"must be a string, got {type(title).__name__}")
            _check_field(op, "title", title)
        if media_type not in TEXT_MEDIA_TYPES:
            raise fail(op, "media_type", f"`{echo(media_type)}` is not one of: {', '.join(TEXT_MEDIA_TYPES)}")
        brain = self._brain(op, source)
        with renamed(op, "brain ingest: ", "store: "):
            return await brain.ingest_text(text, source=source, name=name, media_type=media_type, title=title)

    def _brain(self, op: str, source: object) -> Brain:
        from tinymemory.lifecycle import Brain, MemoryLayout

        name = check_name(op, "source", source)
        layout = MemoryLayout(self._namespace)
        try:
            layout.brain(name)
        except InvalidRequest:
            raise fail(op, "source", "places documents deeper than a namespace may go") from None
        return Brain(self._live, layout)

    # -- tools for a model -----------------------------------------------------------------------
    @checked("tools")
    def tools(
        self,
        toolset: str = "memory",
        *,
        read_only: bool = False,
        zone: str | tzinfo | None = None,
        policy: MemoryPolicy | None = None,
    ) -> AsyncTools:
        """A tool set for a model, bound to this facade: list its specs, call its tools by name.

        `toolset="memory"` is the seven memory_ tools: writes land at this namespace, reads and forgets
        stay in this reach (`zone` names the zone refers_to dates are read in). `toolset="policy"` is
        the memory__ tools of the identity this namespace names (`workspace:W/user:U` or
        `workspace:W/user:U/agent:A`, counted as verified), under `policy` (the built-in one by
        default): they follow the policy's tiers, so they read the user's tiers, the agent's shared
        tier and the workspace's. `read_only` offers only the reading tools. Raises InvalidRequest
        (`tools: ...`) for an unknown set, an option the set does not take, or a namespace that names
        no user for the policy set.
        """
        op = "tools"
        check_bool(op, "read_only", read_only)
        if toolset == "memory":
            if policy is not None:
                raise fail(op, "policy", "applies to the policy tool set only")
            return AsyncTools(
                memory_toolset(self._live, self._namespace, self._reach, read_only=read_only, zone=zone),
                "memory",
            )
        if toolset == "policy":
            if zone is not None:
                raise fail(op, "zone", "applies to the memory tool set only")
            return AsyncTools(
                policy_toolset(self._live, self._namespace, read_only=read_only, policy=policy), "policy"
            )
        raise fail(op, "toolset", f"`{echo(toolset)}` is not a tool set (one of: {', '.join(TOOLSETS)})")

    def _filter(self, op: str, given: dict[str, Any]) -> MetaFilter:
        return meta_filter(op, self._reach, given)
