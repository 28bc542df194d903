"""`Memory`: the synchronous facade for scripts and notebooks, so a script never needs asyncio.

A thin shell over `tinymemory.async_memory.AsyncMemory`: every method runs the coroutine of the same
name on a private event loop thread (which also works inside a notebook's running loop). The rules
(where writes land, what reads see, how bad arguments are refused) are AsyncMemory's, stated there
once, so the two classes cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import datetime, tzinfo
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from tinymemory._loop import LoopThread
from tinymemory.api import (
    EngineDescriptor,
    ExpandResult,
    ExploreResult,
    Facet,
    FetchMode,
    FetchResult,
    ForgetResult,
    GetResult,
    ItemKind,
    ListResult,
    MemoryEngine,
    Namespace,
    NewItem,
    PurgeResult,
    Reach,
    RecallResult,
    StoreResult,
    TimeHint,
)
from tinymemory.async_memory import (
    BRIEF_TOKENS,
    DEFAULT_SOURCE,
    PACK_TOKENS,
    AsyncMemory,
    AsyncTools,
    checked,
)

if TYPE_CHECKING:
    from tinymemory.adapters import ToolOutput, ToolSet
    from tinymemory.context import Brief, ContextPack
    from tinymemory.lifecycle import IngestReport
    from tinymemory.policy import MemoryPolicy

T = TypeVar("T")


class Memory:
    """Sync access to one memory store, placed at one namespace.

    >>> mem = Memory("./mem.db", namespace="team:acme/agent:writer")
    >>> mem.store("The user prefers dark roast coffee", tags=["preference"])
    >>> mem.fetch("what coffee does the user like").hits[0].item.text

    Writes land at `namespace`; reads see it, its ancestors and the documents ingested at any of
    them, unless `reach` says otherwise. Besides the engine's operations it gives context.md
    (`context_md`), holistic recall (`recall_context`), ingest into the brain (`ingest`,
    `ingest_text`) and the agent tool sets (`tools`). `AsyncMemory` has the same methods as
    coroutines.

    Errors (all from `tinymemory.api.errors`): `InvalidRequest` for any bad, missing or unknown
    argument, naming the method and the field; `Unavailable` when the database or the embedder fails
    (retrying may help); `Conflict` for a database file written by a newer tinymemory. Calling a
    closed Memory raises RuntimeError.
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
        self._async = AsyncMemory(path, namespace=namespace, reach=reach, engine=engine, embedder=embedder)
        self._loop = LoopThread()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run(coro)

    # -- what this facade is bound to --------------------------------------------------------------
    @property
    def namespace(self) -> Namespace:
        """Where every write lands."""
        return self._async.namespace

    @property
    def reach(self) -> Reach:
        """What every read, forget and purge is confined to."""
        return self._async.reach

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath, for what the facade does not wrap."""
        return self._async.engine

    @property
    def descriptor(self) -> EngineDescriptor:
        """The engine's name, version, fetch modes and embedder."""
        return self._async.descriptor

    # -- lifecycle -------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the engine and stop the loop thread; later calls raise RuntimeError."""
        try:
            self._run(self._async.close())
        finally:
            self._loop.stop()

    def __enter__(self) -> Memory:
        """`with Memory(...) as mem:` closes the store on the way out."""
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the store."""
        self.close()

    # -- writes ----------------------------------------------------------------------------------
    @checked("item")
    def item(
        self,
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
        """Build a NewItem placed at this Memory's namespace, for `store_many` (see AsyncMemory.item)."""
        return self._async.item(
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

    @checked("store")
    def store(self, text: str, **kwargs: Any) -> StoreResult:
        """Store one memory (`item()`'s keywords); the same memory again is a replay (see
        AsyncMemory.store)."""
        return self._run(self._async.store(text, **kwargs))

    @checked("store_many")
    def store_many(self, items: Sequence[NewItem | str]) -> list[StoreResult]:
        """Store in one transaction, all or nothing (see AsyncMemory.store_many)."""
        return self._run(self._async.store_many(items))

    @checked("forget")
    def forget(self, ids: Sequence[str] | None = None, **filter_fields: Any) -> ForgetResult:
        """Soft-delete by ids or by a non-empty filter, within the reach (see AsyncMemory.forget)."""
        return self._run(self._async.forget(ids, **filter_fields))

    @checked("purge")
    def purge(self) -> PurgeResult:
        """Permanently delete forgotten memory within the reach (see AsyncMemory.purge)."""
        return self._run(self._async.purge())

    # -- reads -----------------------------------------------------------------------------------
    @checked("fetch")
    def fetch(
        self,
        query: str,
        *,
        mode: str | FetchMode | None = None,
        limit: int = 10,
        cursor: str | None = None,
        time_hint: TimeHint | None = None,
        **filter_fields: Any,
    ) -> FetchResult:
        """Rank memory for `query`; extra keywords are MetaFilter fields (see AsyncMemory.fetch)."""
        return self._run(
            self._async.fetch(
                query, mode=mode, limit=limit, cursor=cursor, time_hint=time_hint, **filter_fields
            )
        )

    @checked("recall")
    def recall(self, question: str, *, limit: int = 10, **filter_fields: Any) -> RecallResult:
        """Answer `question` from memory with citations (see AsyncMemory.recall)."""
        return self._run(self._async.recall(question, limit=limit, **filter_fields))

    @checked("list")
    def list(self, *, limit: int = 10, cursor: str | None = None, **filter_fields: Any) -> ListResult:
        """Newest first (see AsyncMemory.list)."""
        return self._run(self._async.list(limit=limit, cursor=cursor, **filter_fields))

    @checked("get")
    def get(self, ids: Sequence[str]) -> GetResult:
        """Read by id; ids outside the reach come back as missing (see AsyncMemory.get)."""
        return self._run(self._async.get(ids))

    @checked("explore")
    def explore(self, facet: str | Facet, *, limit: int = 10, **filter_fields: Any) -> ExploreResult:
        """Count memory by a facet (see AsyncMemory.explore)."""
        return self._run(self._async.explore(facet, limit=limit, **filter_fields))

    @checked("expand")
    def expand(
        self,
        seed_name: str,
        *,
        relation_types: Iterable[str] = (),
        max_hops: int = 1,
        limit: int = 10,
        **filter_fields: Any,
    ) -> ExpandResult:
        """Memories linked to the entity `seed_name` by their relations (see AsyncMemory.expand)."""
        return self._run(
            self._async.expand(
                seed_name, relation_types=relation_types, max_hops=max_hops, limit=limit, **filter_fields
            )
        )

    # -- context for a model -----------------------------------------------------------------------
    @checked("context_md")
    def context_md(
        self,
        *,
        budget_tokens: int = BRIEF_TOKENS,
        briefs: Sequence[Brief] | None = None,
        learnings_limit: int = 50,
    ) -> ContextPack:
        """context.md, the session brief, as a budgeted ContextPack (`.markdown`); see
        AsyncMemory.context_md."""
        return self._run(
            self._async.context_md(
                budget_tokens=budget_tokens, briefs=briefs, learnings_limit=learnings_limit
            )
        )

    @checked("recall_context")
    def recall_context(
        self,
        query: str,
        *,
        budget_tokens: int = PACK_TOKENS,
        limit: int = 10,
        mode: str | FetchMode | None = None,
        time_hint: TimeHint | None = None,
        **filter_fields: Any,
    ) -> ContextPack:
        """Holistic recall for `query`, as one budgeted ContextPack; see AsyncMemory.recall_context."""
        return self._run(
            self._async.recall_context(
                query,
                budget_tokens=budget_tokens,
                limit=limit,
                mode=mode,
                time_hint=time_hint,
                **filter_fields,
            )
        )

    # -- the brain: documents ----------------------------------------------------------------------
    @checked("ingest")
    def ingest(
        self, path: str | PathLike[str], *, source: str = DEFAULT_SOURCE, follow_symlinks: bool = False
    ) -> IngestReport:
        """Ingest a file or a folder into the brain, replay-safe; links leading outside the folder are
        skipped and reported unless `follow_symlinks` (see AsyncMemory.ingest)."""
        return self._run(self._async.ingest(path, source=source, follow_symlinks=follow_symlinks))

    @checked("ingest_text")
    def ingest_text(
        self,
        text: str,
        *,
        name: str,
        source: str = DEFAULT_SOURCE,
        title: str | None = None,
        media_type: str = "text/markdown",
    ) -> IngestReport:
        """Ingest one document given as a string, `name` its identity (see AsyncMemory.ingest_text)."""
        return self._run(
            self._async.ingest_text(text, name=name, source=source, title=title, media_type=media_type)
        )

    # -- tools for a model -----------------------------------------------------------------------
    @checked("tools")
    def tools(
        self,
        toolset: str = "memory",
        *,
        read_only: bool = False,
        zone: str | tzinfo | None = None,
        policy: MemoryPolicy | None = None,
    ) -> Tools:
        """A tool set bound to this Memory, called synchronously (see AsyncMemory.tools)."""
        return Tools(self._async.tools(toolset, read_only=read_only, zone=zone, policy=policy), self._loop)


class Tools:
    """One tool set a model is given, bound to the Memory that made it: `AsyncTools` called
    synchronously on that Memory's loop thread (see `Memory.tools`)."""

    __slots__ = ("_async", "_loop")

    def __init__(self, tools: AsyncTools, loop: LoopThread) -> None:
        """Wrap `tools`, running its calls on `loop` (the Memory's)."""
        self._async = tools
        self._loop = loop

    @property
    def toolset(self) -> ToolSet:
        """The underlying `MemoryTools` or `PolicyTools` (for `tinymemory.adapters.mcp.mcp_server`)."""
        return self._async.toolset

    @checked("names")
    def names(self) -> list[str]:
        """The names of the tools offered, in order."""
        return self._async.names()

    @checked("specs")
    def specs(self, format: str = "neutral", *, strict: bool = False) -> list[dict[str, Any]]:
        """The tools in a runtime's format: neutral, openai, anthropic or mcp (see AsyncTools.specs)."""
        return self._async.specs(format, strict=strict)

    @checked("call")
    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> dict[str, Any]:
        """Run one tool and return its JSON-ready result, or raise (see AsyncTools.call)."""
        return self._loop.run(self._async.call(name, arguments))

    @checked("output")
    def output(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Run one tool and return what the model reads, an error included (see AsyncTools.output)."""
        return self._loop.run(self._async.output(name, arguments))
