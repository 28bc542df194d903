"""The errors the mem0-compatible API raises: tinymemory's own kinds that are also `ValueError`s.

mem0 reports bad input, unknown memory ids and platform-only features as `ValueError` (or its own
validation error); callers written for it catch `ValueError`. These classes keep those `except`
clauses working while still being tinymemory errors (`InvalidRequest`, `NotFound`, `Unsupported`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest, NotFound, Unsupported
from tinymemory.api.validate import check_unicode

P = ParamSpec("P")
R = TypeVar("R")


class InvalidInput(InvalidRequest, ValueError):
    """A missing, mistyped or malformed argument; nothing was written."""


class MemoryNotFound(NotFound, ValueError):
    """No memory with that id is visible to the call (unknown, deleted, or outside its scope)."""


class UnsupportedFeature(Unsupported, ValueError):
    """A mem0 feature this API does not offer (a provider, procedural memory, a platform-only option)."""


def invalid(op: str, field: str, problem: str) -> InvalidInput:
    """`op: \\`field\\` problem`, the library's message style."""
    return InvalidInput(f"{op}: `{field}` {problem}")


def stored_text(op: str, field: str, value: str) -> str:
    """`value` holds no NUL and no lone surrogate: refused here, naming the caller's field, rather than
    by the engine naming its own item's."""
    try:
        return check_unicode(op, field, value)
    except InvalidRequest as exc:
        raise InvalidInput(exc.message) from None


def as_value_error(op: str, exc: InvalidRequest) -> InvalidInput:
    """An engine's InvalidRequest re-raised as this API's InvalidInput, named for the mem0 call."""
    if isinstance(exc, InvalidInput):
        return exc
    message = exc.message
    head, sep, rest = message.partition(": ")
    return InvalidInput(f"{op}: {rest}" if sep and " " not in head else f"{op}: {message}")


def checked(op: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Bind a call before running it, so a missing or unknown argument is an InvalidInput naming `op`
    and the argument, not Python's TypeError (for coroutine functions, raised when called)."""

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


def _binding_error(
    op: str, sig: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> InvalidInput:
    params = [p for name, p in sig.parameters.items() if name != "self"]
    named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    for key in kwargs:
        if key not in named:
            return invalid(op, echo(key, 40), f"is not a known argument (known: {', '.join(sorted(named))})")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    given = len(args) - 1  # without self
    for p in positional[given:]:
        if p.default is p.empty and p.name not in kwargs:
            return invalid(op, p.name, "is required")
    return InvalidInput(
        f"{op}: takes {len(positional)} positional argument(s), got {given} (give the options by keyword)"
    )


def async_api(op: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """`checked` for a coroutine method, whose engine errors also come out as this API's kinds: an
    engine's InvalidRequest becomes an InvalidInput (a ValueError) named for `op`."""

    def wrap(fn: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        sig = inspect.signature(fn)

        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await fn(*args, **kwargs)
            except InvalidRequest as exc:
                raise as_value_error(op, exc) from None

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, R]:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                raise _binding_error(op, sig, args, kwargs) from None
            return run(*args, **kwargs)

        return call

    return wrap
