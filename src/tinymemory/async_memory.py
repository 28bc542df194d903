"""`AsyncMemory`: the memory facade for async hosts, and the logic the sync `Memory` runs.

It owns one engine (the embedded SQLite engine unless you pass another) and one namespace. Writes land
at that namespace; reads see it, its ancestors and the documents ingested at any of them, unless a
wider or narrower `reach` is given. The same rule scopes the agent tools, context.md and holistic
recall it hands out.

Argument checking and request building live here only: `tinymemory.Memory` is a thin shell that runs
these coroutines on a private loop thread, so the two classes cannot drift apart. Every method fails
with the library's own errors, never a bare TypeError or ValueError: a missing, unknown or mistyped
argument is an `InvalidRequest` whose message starts with the method's name and names the argument
("fetch: `mode` `bogus` is not a fetch mode ..."), and nothing is written.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields
from datetime import datetime, tzinfo
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from tinymemory.api import (
    HOST_FIXED_FIELDS,
    MAX_LIMIT,
    About,
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
    ItemMeta,
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
    Relation,
    Source,
    StoreResult,
    TimeHint,
    TinyMemoryError,
)
from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.validate import check_fetch, check_filter, check_limit, check_query, fail

if TYPE_CHECKING:
    from tinymemory.adapters import ToolOutput, ToolSet
    from tinymemory.context import Brief, ContextPack, Scope
    from tinymemory.lifecycle import Brain, IngestReport
    from tinymemory.policy import MemoryPolicy

P = ParamSpec("P")
R = TypeVar("R")

# item()'s named parameters; the other ItemMeta fields are accepted as extra keywords.
_ITEM_PARAMS = ("kind", "tags", "confidence", "learning_kind", "title", "about", "thread_id", "source")
_META_KEYWORDS = tuple(
    f.name for f in fields(ItemMeta) if f.name not in HOST_FIXED_FIELDS and f.name not in _ITEM_PARAMS
)
_FILTER_KEYWORDS = tuple(f.name for f in fields(MetaFilter) if f.name not in HOST_FIXED_FIELDS)
_UNKNOWN_ITEM_KEYWORD = (
    f"is not a known argument (known: {', '.join(('text', *_ITEM_PARAMS, *_META_KEYWORDS))})"
)
_UNKNOWN_FILTER_KEYWORD = f"is not a known argument or filter field (known: {', '.join(_FILTER_KEYWORDS)})"

# Where the brain keeps a node's documents: `MemoryLayout(node).brain_root` (lifecycle/layout.py), spelt
# out here so opening a facade does not import the lifecycle layer.
BRAIN_SEGMENT = ("memory", "brain")
DEFAULT_SOURCE = "docs"
# Holistic recall weighs each step up the namespace tree by this much less than the one below it.
LINEAGE_DECAY = 0.7
BRIEF_TOKENS = 1_500  # context.md's default budget (context.DEFAULT_BUDGET_TOKENS)
PACK_TOKENS = 800  # a holistic-recall pack's default budget (the agent lifecycle's pre-turn pack)
# What a holistic-recall pack holds unless `kinds` is given: whole documents are left out, as in the
# agent lifecycle's pre-turn pack (lifecycle/agent.py), since their chunks carry the same text, better cut.
PACK_KINDS = (ItemKind.LEARNING, ItemKind.CHUNK, ItemKind.SUMMARY, ItemKind.CONVERSATION)
MAX_BUDGET_TOKENS = 1_000_000
TEXT_MEDIA_TYPES = ("text/markdown", "text/plain", "text/html")
TOOLSETS = ("memory", "policy")
TOOL_FORMATS = ("neutral", "openai", "anthropic", "mcp")


def _check_keyword(op: str, key: str, allowed: tuple[str, ...], unknown: str) -> None:
    """A keyword this facade fixes (namespace, reach) or one not in `allowed` is refused, naming it."""
    if key in HOST_FIXED_FIELDS:
        raise fail(op, key, "is fixed by this Memory; open another Memory instead")
    if key not in allowed:
        raise fail(op, echo(key, 40), unknown)


def _binding_error(
    op: str, sig: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> InvalidRequest:
    """Say which argument is wrong, in the library's words rather than Python's."""
    params = [p for name, p in sig.parameters.items() if name != "self"]
    named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
    for key in kwargs:
        if key not in named and not takes_any:
            known = ", ".join(sorted(named)) or "none"
            return fail(op, echo(key, 40), f"is not a known argument (known: {known})")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    given = len(args) - 1  # without self
    for p in positional[given:]:
        if p.default is p.empty and p.name not in kwargs:
            return fail(op, p.name, "is required")
    if given <= len(positional) or any(p.kind is p.VAR_POSITIONAL for p in params):
        for p in params:
            if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name not in kwargs:
                return fail(op, p.name, "is required")
    return InvalidRequest(
        f"{op}: takes {len(positional)} positional argument(s), got {given} (give the options by keyword)"
    )


def checked(op: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Bind the call before running it, so a missing, extra or unknown argument is an InvalidRequest
    naming `op` rather than Python's TypeError. A coroutine function stays one (the check runs when it
    is awaited); the wrapped signature and its types stay as written."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        sig = inspect.signature(fn)

        def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                raise _binding_error(op, sig, args, kwargs) from None

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                bind(args, kwargs)
                return await fn(*args, **kwargs)

            return cast("Callable[P, R]", acall)

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            bind(args, kwargs)
            return fn(*args, **kwargs)

        return call

    return wrap


def _as_namespace(value: str | Namespace) -> Namespace:
    return value if isinstance(value, Namespace) else Namespace.parse(value)


def _as_kind(op: str, field: str, value: object) -> ItemKind:
    try:
        return ItemKind(value)  # type: ignore[arg-type]  # the enum refuses what it cannot take
    except (ValueError, TypeError):
        choices = ", ".join(ItemKind.values())
        raise fail(op, field, f"`{echo(value)}` is not an item kind (one of: {choices})") from None


def _as_mode(op: str, mode: object) -> FetchMode | None:
    """A fetch mode's name becomes the enum; None and FetchMode pass; whether it is served is the
    engine's to say."""
    if mode is None or isinstance(mode, FetchMode):
        return mode
    try:
        return FetchMode(mode)  # type: ignore[arg-type]  # the enum refuses what it cannot take
    except (ValueError, TypeError):
        choices = ", ".join(m.value for m in FetchMode)
        raise fail(op, "mode", f"`{echo(mode)}` is not a fetch mode (one of: {choices})") from None


def _as_strings(op: str, field: str, value: object, of: str = "strings") -> tuple[Any, ...]:
    """A list (or other iterable) of `of` as a tuple; one bare string is refused, not split."""
    if isinstance(value, str | bytes):
        raise fail(op, field, f"must be a list of {of}, not one string")
    if not isinstance(value, Iterable):
        raise fail(op, field, f"must be a list of {of}, got {type(value).__name__}")
    return tuple(value)


def _as_about(op: str, field: str, value: object) -> object:
    """A (kind, key) pair of strings becomes an About; an About passes; anything else is refused."""
    if value is None or isinstance(value, About):
        return value
    if isinstance(value, tuple | list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return About(value[0], value[1])
    raise fail(op, field, "must be a (kind, key) pair of strings")


def _as_relations(op: str, field: str, value: object) -> tuple[Any, ...]:
    """Relations, or (subject, type, object) triples of strings made into Relations; the engine
    checks each field."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise fail(op, field, "must be a list of relations or (subject, type, object) triples")
    out: list[Any] = []
    for i, rel in enumerate(value):
        if isinstance(rel, tuple | list) and len(rel) == 3 and all(isinstance(v, str) for v in rel):
            rel = Relation(rel[0], rel[1], rel[2])
        if not isinstance(rel, Relation):
            raise fail(op, f"{field}[{i}]", "must be a Relation or a (subject, type, object) triple")
        out.append(rel)
    return tuple(out)


def _check_bool(op: str, field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise fail(op, field, f"must be true or false, got {type(value).__name__}")
    return value


def _check_name(op: str, field: str, value: object) -> str:
    """One namespace segment name (the brain's source): the grammar `Namespace.parse` reads."""
    if isinstance(value, str):
        try:
            if Namespace.parse(f"x:{value}").depth == 1:
                return value
        except InvalidRequest:
            pass
    raise fail(
        op,
        field,
        f"`{echo(value)}` is not a valid name (letters, digits and ._@+=~-, starting with a letter "
        "or digit, at most 128 characters)",
    )


@contextmanager
def _renamed(op: str, prefix: str) -> Iterator[None]:
    """A library error whose message starts with `prefix` (a lower layer's operation) is raised again
    led by `op`, the method the caller called."""
    try:
        yield
    except TinyMemoryError as exc:
        if not exc.message.startswith(prefix):
            raise
        raise type(exc)(f"{op}: {exc.message.removeprefix(prefix)}") from exc


def brain_root(node: Namespace) -> Namespace | None:
    """Where the brain keeps the documents ingested at `node` (None when the tree is too deep there)."""
    try:
        return node.child(*BRAIN_SEGMENT)
    except InvalidRequest:
        return None


def default_reach(namespace: Namespace) -> Reach:
    """The node, its ancestors, and the documents ingested at any of them (their brain subtrees).

    Never a sibling's or a child's own memory: only the `memory:brain` branch under each node of the
    lineage is added to `Reach.of(namespace)`.
    """
    brains = [Reach.subtree(b) for node in namespace.lineage() if (b := brain_root(node)) is not None]
    return Reach.union(Reach.of(namespace), *brains)


class AsyncMemory:
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
        self._namespace = _as_namespace(namespace)
        if reach is not None and not isinstance(reach, Reach):
            raise fail("memory", "reach", "must be a Reach (see Reach.of, Reach.subtree) or None")
        if isinstance(embedder, str) and embedder != "default":
            raise fail(
                "memory", "embedder", f"must be an Embedder, None or 'default', got `{echo(embedder)}`"
            )
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

    async def __aenter__(self) -> AsyncMemory:
        """`async with AsyncMemory(...) as mem:` closes the store on the way out."""
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the store."""
        await self.close()

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

    def _new_item(
        self,
        op: str,
        text: str,
        *,
        kind: object = ItemKind.LEARNING,
        tags: object = (),
        confidence: float | None = None,
        learning_kind: str | None = None,
        title: str | None = None,
        about: object = None,
        thread_id: str | None = None,
        source: object = None,
        **meta: Any,
    ) -> NewItem:
        for key in meta:
            _check_keyword(op, key, _META_KEYWORDS, _UNKNOWN_ITEM_KEYWORD)
        for key, value in meta.items():
            if key == "relations":
                meta[key] = _as_relations(op, key, value)
            elif isinstance(value, list):
                meta[key] = tuple(value)
        item_kind = _as_kind(op, "kind", kind)
        if source is not None and not isinstance(source, str):
            raise fail(op, "source", f"must be a string, got {type(source).__name__}")
        return NewItem(
            kind=item_kind,
            text=text,
            confidence=confidence,
            meta=ItemMeta(
                namespace=self._namespace,
                tags=_as_strings(op, "tags", tags),
                learning_kind=learning_kind
                if learning_kind is not None
                else ("fact" if item_kind is ItemKind.LEARNING else None),
                title=title,
                about=_as_about(op, "about", about),  # type: ignore[arg-type]
                thread_id=thread_id,
                source=Source(source) if source else None,
                **meta,
            ),
        )

    @checked("store")
    async def store(self, text: str, **kwargs: Any) -> StoreResult:
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
    async def forget(self, ids: Sequence[str] | None = None, **filter_fields: Any) -> ForgetResult:
        """Soft-delete by ids or by a non-empty filter, confined to this facade's reach.

        Raises InvalidRequest (`forget: ...`) for bad ids, an unknown filter field, or neither ids
        nor a filter (the reach alone would forget everything in it).
        """
        if ids is not None:
            req = ForgetRequest(ids=_as_strings("forget", "ids", ids, "ids"), reach=self._reach)
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
        query: str,
        *,
        mode: str | FetchMode | None = None,
        limit: int = 10,
        cursor: str | None = None,
        time_hint: TimeHint | None = None,
        **filter_fields: Any,
    ) -> FetchResult:
        """Rank memory for `query`; extra keywords are MetaFilter fields.

        Raises InvalidRequest (`fetch: ...`) for a bad query, mode, limit, cursor, hint or filter field.
        """
        req = FetchRequest(
            query=query,
            mode=_as_mode("fetch", mode),
            filter=self._filter("fetch", filter_fields),
            limit=limit,
            cursor=cursor,
            time_hint=time_hint,
        )
        return await self._live.fetch(req)

    @checked("recall")
    async def recall(self, question: str, *, limit: int = 10, **filter_fields: Any) -> RecallResult:
        """Answer `question` from memory with citations (the engine's answerer). Raises InvalidRequest
        (`recall: ...`) for bad arguments, Unavailable when the answerer or embedder fails."""
        req = RecallRequest(question=question, filter=self._filter("recall", filter_fields), limit=limit)
        return await self._live.recall(req)

    @checked("list")
    async def list(self, *, limit: int = 10, cursor: str | None = None, **filter_fields: Any) -> ListResult:
        """Newest first. Raises InvalidRequest (`list: ...`) for a bad limit, cursor or filter field."""
        req = ListRequest(filter=self._filter("list", filter_fields), limit=limit, cursor=cursor)
        return await self._live.list(req)

    @checked("get")
    async def get(self, ids: Sequence[str]) -> GetResult:
        """Read by id; ids outside the reach come back as missing. Raises InvalidRequest for bad ids."""
        req = GetRequest(ids=_as_strings("get", "ids", ids, "ids"), reach=self._reach)
        return await self._live.get(req)

    @checked("explore")
    async def explore(self, facet: str | Facet, *, limit: int = 10, **filter_fields: Any) -> ExploreResult:
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
            else _as_strings("expand", "relation_types", relation_types)
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

        listed = _as_strings(op, "briefs", briefs, "Briefs")
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
                mode=_as_mode(op, mode),
                filter=self._filter(op, given),
                limit=limit,
                time_hint=time_hint,
            ),
            self._live.descriptor.fetch_modes,
            op,
        )
        check_limit(op, budget_tokens, field="budget_tokens", maximum=MAX_BUDGET_TOKENS)
        return await recall(
            self._live,
            req.query,
            self._scopes(),
            budget_tokens=budget_tokens,
            limit=req.limit,
            filter=req.filter,
            mode=req.mode,
            time_hint=req.time_hint,
        )

    def _scopes(self) -> tuple[Scope, ...]:
        """The terms of a holistic read; their union is exactly this facade's reach."""
        from tinymemory.context import Scope

        if self._reach_given:
            return (Scope(self._reach, 1.0, str(self._reach)),)
        scopes: list[Scope] = []
        weight = 1.0
        for node in self._namespace.lineage():
            brain = brain_root(node)
            terms = [Reach.exact(node)] + ([Reach.subtree(brain)] if brain is not None else [])
            scopes.append(Scope(Reach.union(*terms), weight, str(node) or "root"))
            weight *= LINEAGE_DECAY
        return tuple(scopes)

    # -- the brain: documents ----------------------------------------------------------------------
    @checked("ingest")
    async def ingest(self, path: str | PathLike[str], *, source: str = DEFAULT_SOURCE) -> IngestReport:
        """Ingest a file or a folder (markdown, text, html; pdf with the pdf extra) into the brain.

        Documents land under `<namespace>/memory:brain/source:<source>`, the place `tinymemory ingest
        --namespace ... --source ...` uses, which this facade's default reach reads. Each document
        is stored whole and in chunks; ingesting it again is skipped when unchanged and replaces its
        chunks when changed. A folder is walked recursively (hidden files skipped) and one unreadable
        file is reported in `failed` without stopping the others. Raises InvalidRequest (`ingest:
        ...`) for a path that does not exist or a bad source name.
        """
        op = "ingest"
        if not isinstance(path, str | PathLike) or not str(path).strip():
            raise fail(op, "path", "must be a file or folder path")
        target = Path(path)
        if not target.exists():
            raise fail(op, "path", f"`{echo(str(target))}` does not exist")
        brain = self._brain(op, source)
        with _renamed(op, "brain ingest: "):
            return await brain.ingest(target, source=source)

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
        if not isinstance(name, str) or not name.strip():
            raise fail(op, "name", "must be a non-empty string")
        if title is not None and not isinstance(title, str):
            raise fail(op, "title", f"must be a string, got {type(title).__name__}")
        if media_type not in TEXT_MEDIA_TYPES:
            raise fail(op, "media_type", f"`{echo(media_type)}` is not one of: {', '.join(TEXT_MEDIA_TYPES)}")
        brain = self._brain(op, source)
        with _renamed(op, "brain ingest: "):
            return await brain.ingest_text(text, source=source, name=name, media_type=media_type, title=title)

    def _brain(self, op: str, source: object) -> Brain:
        from tinymemory.lifecycle import Brain, MemoryLayout

        name = _check_name(op, "source", source)
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
        _check_bool(op, "read_only", read_only)
        if toolset == "memory":
            if policy is not None:
                raise fail(op, "policy", "applies to the policy tool set only")
            return AsyncTools(self._memory_tools(read_only, zone), "memory")
        if toolset == "policy":
            if zone is not None:
                raise fail(op, "zone", "applies to the memory tool set only")
            return AsyncTools(self._policy_tools(read_only, policy), "policy")
        raise fail(op, "toolset", f"`{echo(toolset)}` is not a tool set (one of: {', '.join(TOOLSETS)})")

    def _memory_tools(self, read_only: bool, zone: object) -> ToolSet:
        from tinymemory.tools import MemoryTools, ToolScope

        tools = MemoryTools(self._live, ToolScope(self._namespace, self._reach, writes=not read_only))
        if zone is not None:
            if not isinstance(zone, str | tzinfo):
                raise fail("tools", "zone", "must be a time zone name or a tzinfo")
            tools = tools.in_zone(zone)
        return tools

    def _policy_tools(self, read_only: bool, policy: object) -> ToolSet:
        from tinymemory.policy import POLICY_READ_TOOLS, Identity, MemoryPolicy, PolicyTools, Registration

        if policy is not None and not isinstance(policy, MemoryPolicy):
            raise fail("tools", "policy", f"must be a MemoryPolicy, got {type(policy).__name__}")
        segments = self._namespace.segments
        kinds = [s.kind for s in segments]
        if kinds not in (["workspace", "user"], ["workspace", "user", "agent"]):
            raise fail(
                "tools",
                "toolset",
                "`policy` needs this Memory's namespace to name a user (workspace:W/user:U or "
                f"workspace:W/user:U/agent:A), not `{echo(str(self._namespace) or 'root')}`",
            )
        agent = segments[2].name if len(segments) == 3 else None
        identity = Identity(segments[0].name, segments[1].name, agent, verified=True)
        registration = Registration(offer=POLICY_READ_TOOLS) if read_only else None
        return PolicyTools.for_identity(self._live, identity, policy, registration=registration)

    # -- shared ------------------------------------------------------------------------------------
    def _filter(self, op: str, given: dict[str, Any]) -> MetaFilter:
        """Keyword filter fields to a MetaFilter confined to this facade's reach; values are checked
        by the engine, only their shape is fixed up here (lists to tuples, pairs to About)."""
        fields_: dict[str, Any] = {}
        for key, value in given.items():
            _check_keyword(op, key, _FILTER_KEYWORDS, _UNKNOWN_FILTER_KEYWORD)
            if key == "kinds":
                kinds = (value,) if isinstance(value, str) else _as_strings(op, "filter.kinds", value)
                value = tuple(_as_kind(op, "filter.kinds", k) for k in kinds)
            elif key == "about":
                value = _as_about(op, "filter.about", value) if isinstance(value, list | tuple) else value
            elif isinstance(value, list):
                value = tuple(value)
            fields_[key] = value
        return MetaFilter(reach=self._reach, **fields_)


class AsyncTools:
    """One tool set a model is given, bound to the facade that made it (see `AsyncMemory.tools`).

    `specs(format)` describes the tools for a runtime; `call(name, arguments)` runs one and returns its
    JSON-ready result or raises; `output(name, arguments)` runs one and returns what the model reads,
    an error included, so a host loop needs no try/except.
    """

    __slots__ = ("_kind", "_toolset")

    def __init__(self, toolset: ToolSet, kind: str) -> None:
        """Wrap a `MemoryTools` or `PolicyTools`; `kind` is "memory" or "policy"."""
        self._toolset = toolset
        self._kind = kind

    @property
    def toolset(self) -> ToolSet:
        """The underlying `MemoryTools` or `PolicyTools` (for `tinymemory.adapters.mcp.mcp_server`)."""
        return self._toolset

    @checked("names")
    def names(self) -> list[str]:
        """The names of the tools offered, in order."""
        return [s.name for s in self._toolset.specs()]

    @checked("specs")
    def specs(self, format: str = "neutral", *, strict: bool = False) -> list[dict[str, Any]]:
        """The tools as a runtime wants them: "neutral" ({name, description, parameters}), "openai"
        (function tools; `strict=True` for strict mode), "anthropic" ({name, description,
        input_schema}) or "mcp" (MCP tool definitions with inputSchema and annotations).

        Raises InvalidRequest (`specs: ...`) for an unknown format or `strict` outside openai.
        """
        from tinymemory.adapters import anthropic_tool, openai_tool

        if format not in TOOL_FORMATS:
            raise fail(
                "specs", "format", f"`{echo(format)}` is not a format (one of: {', '.join(TOOL_FORMATS)})"
            )
        if _check_bool("specs", "strict", strict) and format != "openai":
            raise fail("specs", "strict", "applies to the openai format only")
        specs = self._toolset.specs()
        if format == "openai":
            return [openai_tool(s, strict=strict) for s in specs]
        if format == "anthropic":
            return [anthropic_tool(s) for s in specs]
        if format == "mcp":
            from tinymemory.adapters.mcp import mcp_tool  # the MCP SDK loads only for this format

            return [mcp_tool(s).model_dump(by_alias=True, exclude_none=True, mode="json") for s in specs]
        return [s.to_dict() for s in specs]

    @checked("call")
    async def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> dict[str, Any]:
        """Run tool `name` with `arguments` (a mapping, its JSON text, or None for none) and return
        the result as JSON-ready data.

        Raises InvalidRequest (a bad name or bad arguments, named for the tool), Unsupported (a tool
        this set does not offer, e.g. a write on read-only tools) and the engine's errors, led by the
        tool's name; nothing is written on an error.
        """
        known = self._known()
        if not isinstance(name, str) or name not in known:
            raise fail(
                "call", "name", f"`{echo(name)}` is not a {self._kind} tool (one of: {', '.join(known)})"
            )
        return await self._toolset.call(name, arguments)

    @checked("output")
    async def output(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Run tool `name` like `call`, but return what the model reads: `.text` is the result's compact
        JSON or "error: <message>", `.is_error` says which, `.value` is the result on success. Only a
        bug (not a contract error) raises."""
        from tinymemory.adapters import ToolOutput, error_text, result_text

        try:
            value = await self.call(name, arguments)
        except TinyMemoryError as error:
            return ToolOutput(error_text(error), True, None, error.kind)
        return ToolOutput(result_text(value), False, value)

    def _known(self) -> tuple[str, ...]:
        """Every tool name of this kind of set, offered or not (an unoffered one is Unsupported)."""
        if self._kind == "policy":
            from tinymemory.policy import POLICY_TOOL_NAMES

            return POLICY_TOOL_NAMES
        from tinymemory.tools import TOOL_NAMES

        return TOOL_NAMES
