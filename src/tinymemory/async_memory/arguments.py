"""Reading a facade call's arguments: Python's binding errors in the library's words, and keyword
arguments shaped into items and filters.

Every refusal is an `InvalidRequest` whose message starts with the method's name and names the argument
("fetch: `mode` `bogus` is not a fetch mode ..."); values the engine checks anyway (texts, limits,
dates) are left to it, so each rule lives in one place.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, ParamSpec, TypeVar, cast

from tinymemory.api import (
    HOST_FIXED_FIELDS,
    About,
    FetchMode,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    Relation,
    Source,
    TinyMemoryError,
)
from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.validate import fail, unknown_argument

P = ParamSpec("P")
R = TypeVar("R")

# item()'s named parameters; the other ItemMeta fields are accepted as extra keywords.
ITEM_PARAMS = ("kind", "tags", "confidence", "learning_kind", "title", "about", "thread_id", "source")
META_KEYWORDS = tuple(
    f.name for f in fields(ItemMeta) if f.name not in HOST_FIXED_FIELDS and f.name not in ITEM_PARAMS
)
FILTER_KEYWORDS = tuple(f.name for f in fields(MetaFilter) if f.name not in HOST_FIXED_FIELDS)
_UNKNOWN_ITEM_KEYWORD = (
    f"is not a known argument (known: {', '.join(('text', *ITEM_PARAMS, *META_KEYWORDS))})"
)
_UNKNOWN_FILTER_KEYWORD = f"is not a known argument or filter field (known: {', '.join(FILTER_KEYWORDS)})"


def _check_keyword(op: str, key: str, allowed: tuple[str, ...], unknown: str) -> None:
    """A keyword the facade fixes (namespace, reach) or one not in `allowed` is refused, naming it."""
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
            return unknown_argument(op, echo(key, 40), sorted(named))
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


def check_opening(op: str, engine: object, embedder: object) -> None:
    """What a facade or bridge opens: an engine that is a MemoryEngine (a file or URL given in its
    place is the commonest slip), and an embedder that is an Embedder, None or "default"."""
    if engine is not None and not isinstance(engine, MemoryEngine):
        raise fail(
            op,
            "engine",
            f"must be a MemoryEngine, got {type(engine).__name__} (a file or URL goes in `path`)",
        )
    if embedder is None or embedder == "default":
        return
    from tinymemory.retrieval.embedders.base import Embedder

    if not isinstance(embedder, Embedder):
        raise fail(op, "embedder", f"must be an Embedder, None or 'default', got `{echo(embedder)}`")


def as_namespace(value: str | Namespace) -> Namespace:
    """A namespace, parsed from its text form when given as a string."""
    return value if isinstance(value, Namespace) else Namespace.parse(value)


def as_kind(op: str, field: str, value: object) -> ItemKind:
    """An item kind from its name; anything else is refused, listing the kinds."""
    try:
        return ItemKind(value)  # type: ignore[arg-type]  # the enum refuses what it cannot take
    except (ValueError, TypeError):
        choices = ", ".join(ItemKind.values())
        raise fail(op, field, f"`{echo(value)}` is not an item kind (one of: {choices})") from None


def as_mode(op: str, mode: object) -> FetchMode | None:
    """A fetch mode's name becomes the enum; None and FetchMode pass; whether it is served is the
    engine's to say."""
    if mode is None or isinstance(mode, FetchMode):
        return mode
    try:
        return FetchMode(mode)  # type: ignore[arg-type]  # the enum refuses what it cannot take
    except (ValueError, TypeError):
        choices = ", ".join(m.value for m in FetchMode)
        raise fail(op, "mode", f"`{echo(mode)}` is not a fetch mode (one of: {choices})") from None


def as_strings(op: str, field: str, value: object, of: str = "strings") -> tuple[Any, ...]:
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


def check_count(op: str, field: str, value: object) -> int:
    """A whole number of things, 0 included (a bridge's limit, offset, depth or top_k); a bool is not
    one, though Python counts it as an int."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise fail(op, field, f"must be a whole number >= 0, got {echo(value)}")
    return value


def check_name(op: str, field: str, value: object) -> str:
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
def renamed(op: str, *prefixes: str) -> Iterator[None]:
    """A library error whose message starts with one of `prefixes` (a lower layer's operation) is
    raised again led by `op`, the method the caller called."""
    try:
        yield
    except TinyMemoryError as exc:
        prefix = next((p for p in prefixes if exc.message.startswith(p)), None)
        if prefix is None:
            raise
        raise type(exc)(f"{op}: {exc.message.removeprefix(prefix)}") from exc


def new_item(
    op: str,
    namespace: Namespace,
    text: str,
    /,
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
    """A NewItem at `namespace` from `item()`'s keywords; unknown and host-fixed keywords (a
    `namespace` among them, hence the positional-only parameters) are refused."""
    for key in meta:
        _check_keyword(op, key, META_KEYWORDS, _UNKNOWN_ITEM_KEYWORD)
    for key, value in meta.items():
        if key == "relations":
            meta[key] = _as_relations(op, key, value)
        elif isinstance(value, list):
            meta[key] = tuple(value)
    item_kind = as_kind(op, "kind", kind)
    if source is not None and not isinstance(source, str):
        raise fail(op, "source", f"must be a string, got {type(source).__name__}")
    return NewItem(
        kind=item_kind,
        text=text,
        confidence=confidence,
        meta=ItemMeta(
            namespace=namespace,
            tags=as_strings(op, "tags", tags),
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


def meta_filter(op: str, reach: Reach, given: dict[str, Any]) -> MetaFilter:
    """Keyword filter fields to a MetaFilter confined to `reach`; values are checked by the engine,
    only their shape is fixed up here (lists to tuples, pairs to About)."""
    fields_: dict[str, Any] = {}
    for key, value in given.items():
        _check_keyword(op, key, FILTER_KEYWORDS, _UNKNOWN_FILTER_KEYWORD)
        if key == "kinds":
            kinds = (value,) if isinstance(value, str) else as_strings(op, "filter.kinds", value)
            value = tuple(as_kind(op, "filter.kinds", k) for k in kinds)
        elif key == "about":
            value = _as_about(op, "filter.about", value) if isinstance(value, list | tuple) else value
        elif isinstance(value, list):
            value = tuple(value)
        fields_[key] = value
    return MetaFilter(reach=reach, **fields_)
