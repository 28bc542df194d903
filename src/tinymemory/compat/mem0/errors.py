"""The errors the mem0-compatible API raises: tinymemory's own kinds that are also `ValueError`s.

mem0 reports bad input, unknown memory ids and platform-only features as `ValueError` (or its own
validation error); callers written for it catch `ValueError`. These classes keep those `except`
clauses working while still being tinymemory errors (`InvalidRequest`, `NotFound`, `Unsupported`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from tinymemory.api.errors import InvalidRequest, NotFound, Unsupported
from tinymemory.api.validate import check_unicode, fail
from tinymemory.async_memory import arguments

P = ParamSpec("P")
R = TypeVar("R")


class InvalidInput(InvalidRequest, ValueError):
    """A missing, mistyped or malformed argument; nothing was written."""


class MemoryNotFound(NotFound, ValueError):
    """No memory with that id is visible to the call (unknown, deleted, or outside its scope)."""


class UnsupportedFeature(Unsupported, ValueError):
    """A mem0 feature this API does not offer (a provider, procedural memory, a platform-only option)."""


def invalid(op: str, field: str, problem: str) -> InvalidInput:
    """The library's refusal (`fail`'s words: op, field, problem) as this API's InvalidInput."""
    return InvalidInput(fail(op, field, problem).message)


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
    """The facades' `checked` (a missing or unknown argument named, not Python's TypeError), with
    every InvalidRequest the call raises coming out as an InvalidInput (a ValueError) named for `op`."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        bound = arguments.checked(op)(fn)

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return bound(*args, **kwargs)
            except InvalidRequest as exc:
                raise as_value_error(op, exc) from None

        return call

    return wrap


def async_api(op: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """`checked` for a coroutine method: the arguments are bound when it is called (not awaited), and
    the engine's InvalidRequest comes out as an InvalidInput (a ValueError) named for `op`."""

    def wrap(fn: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await fn(*args, **kwargs)
            except InvalidRequest as exc:
                raise as_value_error(op, exc) from None

        @functools.wraps(fn)
        def start(*args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, R]:
            return run(*args, **kwargs)

        return checked(op)(start)

    return wrap
