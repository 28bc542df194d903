"""`Memory`: the synchronous facade for scripts and notebooks.

It owns one engine (the embedded SQLite engine unless you pass another) and one namespace. Writes land
at that namespace; reads see it and its ancestors unless a wider or narrower `reach` is given, the same
rule the agent tools follow.

Every method fails with the library's own errors, never a bare TypeError or ValueError: a missing,
unknown or mistyped argument is an `InvalidRequest` whose message starts with the method's name and
names the argument ("fetch: `mode` `bogus` is not a fetch mode ..."), and nothing is written.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

from tinymemory._loop import LoopThread
from tinymemory.api import (
    HOST_FIXED_FIELDS,
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
)
from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.validate import fail

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


def _check_keyword(op: str, key: str, allowed: tuple[str, ...], unknown: str) -> None:
    """A keyword this Memory fixes (namespace, reach) or one not in `allowed` is refused, naming it."""
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
    return InvalidRequest(
        f"{op}: takes {len(positional)} positional argument(s), got {given} (give the options by keyword)"
    )


def _checked(op: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Bind the call before running it, so a missing, extra or unknown argument is an InvalidRequest
    naming `op` rather than Python's TypeError; the wrapped signature (and its types) stay as written."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                raise _binding_error(op, sig, args, kwargs) from None
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


class Memory:
    """Sync access to one memory store, placed at one namespace.

    >>> mem = Memory("./mem.db", namespace="team:acme/agent:writer")
    >>> mem.store("The user prefers dark roast coffee", tags=["preference"])
    >>> mem.fetch("what coffee does the user like").hits[0].item.text

    Errors (all from `tinymemory.api.errors`): `InvalidRequest` for any bad, missing or unknown
    argument, naming the method and the field; `Unavailable` when the database or the embedder fails
    (retrying may help); `Conflict` for a database file written by a newer tinymemory. Calling a
    closed Memory raises RuntimeError.
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
        """Raises InvalidRequest for a malformed namespace, a reach that is not a `Reach`, or an
        embedder name other than "default"."""
        self.namespace = _as_namespace(namespace)
        if reach is not None and not isinstance(reach, Reach):
            raise fail("memory", "reach", "must be a Reach (see Reach.of, Reach.subtree) or None")
        if isinstance(embedder, str) and embedder != "default":
            raise fail(
                "memory", "embedder", f"must be an Embedder, None or 'default', got `{echo(embedder)}`"
            )
        self.reach = reach if reach is not None else Reach.of(self.namespace)
        if engine is None:
            from tinymemory.engines import open_engine

            engine = open_engine(path, embedder=embedder)
        self.engine: MemoryEngine = engine
        self._loop = LoopThread()

    # -- lifecycle -------------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self._loop.run(self.engine.close())
        finally:
            self._loop.stop()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def descriptor(self) -> EngineDescriptor:
        return self.engine.descriptor

    # -- writes ----------------------------------------------------------------------------------
    @_checked("item")
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
        """Build a NewItem placed at this Memory's namespace (extra keyword args go to ItemMeta).

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
                namespace=self.namespace,
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

    @_checked("store")
    def store(self, text: str, **kwargs: Any) -> StoreResult:
        """Store one memory; storing the same memory again is a replay (same id, replayed=True).

        Takes `item()`'s keywords. Raises InvalidRequest (`store: ...`) for bad arguments or an
        invalid item, Unavailable when the database or embedder fails; nothing is written on error.
        """
        return self._loop.run(self.engine.store(self._new_item("store", text, **kwargs)))

    @_checked("store_many")
    def store_many(self, items: Sequence[NewItem | str]) -> list[StoreResult]:
        """Store in one transaction, embeddings batched; all or nothing.

        Raises InvalidRequest ("store_many: `items[i]...`") when any item is bad, before anything
        is written; Unavailable when the database or embedder fails (the whole batch rolls back).
        """
        if isinstance(items, str | bytes):
            raise fail("store_many", "items", "must be a list of texts or NewItems, not one string")
        if not isinstance(items, Iterable):
            raise fail("store_many", "items", f"must be a list, got {type(items).__name__}")
        listed = list(items)
        built = [self._new_item("store_many", i) if isinstance(i, str) else i for i in listed]
        return self._loop.run(self.engine.store_many(built))

    @_checked("forget")
    def forget(self, ids: Sequence[str] | None = None, **filter_fields: Any) -> ForgetResult:
        """Soft-delete by ids or by a non-empty filter, confined to this Memory's reach.

        Raises InvalidRequest (`forget: ...`) for bad ids, an unknown filter field, or neither ids
        nor a filter (the reach alone would forget everything in it).
        """
        if ids is not None:
            req = ForgetRequest(ids=_as_strings("forget", "ids", ids, "ids"), reach=self.reach)
        else:
            flt = self._filter("forget", filter_fields)
            if all(name == "reach" for name in flt.set_fields()):
                raise InvalidRequest(
                    "forget: `filter` must set at least one field when no ids are given"
                    " (the reach alone would forget everything in it)"
                )
            req = ForgetRequest(filter=flt)
        return self._loop.run(self.engine.forget(req))

    @_checked("purge")
    def purge(self) -> PurgeResult:
        """Permanently delete forgotten memory within this Memory's reach."""
        return self._loop.run(self.engine.purge(PurgeRequest(reach=self.reach)))

    # -- reads -----------------------------------------------------------------------------------
    @_checked("fetch")
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
        """Rank memory for `query`; extra keywords are MetaFilter fields.

        Raises InvalidRequest (`fetch: ...`) for a bad query, mode, limit, cursor, hint or filter field.
        """
        if isinstance(mode, str) and not isinstance(mode, FetchMode):
            try:
                mode = FetchMode(mode)
            except ValueError:
                choices = ", ".join(m.value for m in FetchMode)
                raise fail(
                    "fetch", "mode", f"`{echo(mode)}` is not a fetch mode (one of: {choices})"
                ) from None
        req = FetchRequest(
            query=query,
            mode=mode,
            filter=self._filter("fetch", filter_fields),
            limit=limit,
            cursor=cursor,
            time_hint=time_hint,
        )
        return self._loop.run(self.engine.fetch(req))

    @_checked("recall")
    def recall(self, question: str, *, limit: int = 10, **filter_fields: Any) -> RecallResult:
        """Answer `question` from memory with citations. Raises InvalidRequest (`recall: ...`) for bad
        arguments, Unavailable when the answerer or embedder fails."""
        req = RecallRequest(question=question, filter=self._filter("recall", filter_fields), limit=limit)
        return self._loop.run(self.engine.recall(req))

    @_checked("list")
    def list(self, *, limit: int = 10, cursor: str | None = None, **filter_fields: Any) -> ListResult:
        """Newest first. Raises InvalidRequest (`list: ...`) for a bad limit, cursor or filter field."""
        req = ListRequest(filter=self._filter("list", filter_fields), limit=limit, cursor=cursor)
        return self._loop.run(self.engine.list(req))

    @_checked("get")
    def get(self, ids: Sequence[str]) -> GetResult:
        """Read by id; ids outside the reach come back as missing. Raises InvalidRequest for bad ids."""
        return self._loop.run(
            self.engine.get(GetRequest(ids=_as_strings("get", "ids", ids, "ids"), reach=self.reach))
        )

    @_checked("explore")
    def explore(self, facet: str | Facet, *, limit: int = 10, **filter_fields: Any) -> ExploreResult:
        """Count memory by a facet. Raises InvalidRequest (`explore: ...`) for a bad facet or filter."""
        try:
            fac = Facet(facet)
        except (ValueError, TypeError):
            choices = ", ".join(f.value for f in Facet)
            raise fail("explore", "facet", f"`{echo(facet)}` is not a facet (one of: {choices})") from None
        req = ExploreRequest(facet=fac, filter=self._filter("explore", filter_fields), limit=limit)
        return self._loop.run(self.engine.explore(req))

    @_checked("expand")
    def expand(
        self,
        seed_name: str,
        *,
        relation_types: Iterable[str] = (),
        max_hops: int = 1,
        limit: int = 10,
        **filter_fields: Any,
    ) -> ExpandResult:
        """Memories linked to the entity `seed_name` by their relations, 1 or 2 hops away, within this
        Memory's reach; extra keywords are MetaFilter fields (`as_of` walks the graph of that instant).

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
        return self._loop.run(self.engine.expand(req))

    def _filter(self, op: str, given: dict[str, Any]) -> MetaFilter:
        """Keyword filter fields to a MetaFilter confined to this Memory's reach; values are checked
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
        return MetaFilter(reach=self.reach, **fields_)
