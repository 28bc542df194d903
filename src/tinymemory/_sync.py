"""Sync classes derived from async ones: each sync member is one line naming the async member it runs.

    @derived(AsyncMemory)
    class Memory(SyncFacade[AsyncMemory]):
        fetch = blocking(AsyncMemory.fetch)        # the coroutine, run on the loop thread
        item = direct(AsyncMemory.item)            # a plain method, called as it is
        namespace: Forwarded[Namespace] = forwarded(AsyncMemory.namespace)

Each built method is a real function with the async member's name, signature and docstring, renamed
into the sync class by `derived`, so `help()`, `inspect.signature` and the API reference show the async
class's words, written once. The sync class holds no argument checks and no logic of its own: the async
method does all of it, so the two cannot drift apart. Closing and with-blocks live in `SyncFacade`.

Why one line per member, not a `__getattr__` that finds the async method by name: the line is what a
type checker and an IDE read. `blocking` is typed with `Concatenate`, so `mem.fetch` has the async
method's exact parameters and its awaited result type (measured: mypy --strict and pyright both reveal
the full signature; a `__getattr__` would make every member Any, and completion would list nothing).
An async method that takes `**kwargs` declares `self` positional-only (`def fetch(self, /, query, ...)`):
a type checker refuses to drop a named `self` from it, since `self=` could be one of those keywords. A
property is forwarded with its type written beside it (`Forwarded[Namespace]`), which mypy checks
against the async getter; pyright cannot infer that type from a property object. The API reference
reads these members by importing them (scripts/griffe_derived.py), since the source shows only the
call. Tests compare each pair of classes name by name, signature by signature and docstring by
docstring, so an async member added without its line here fails there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from tinymemory._loop import LoopThread, in_a_loop
from tinymemory.api.blocking import MAY_BLOCK
from tinymemory.api.closing import Closing

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
S = TypeVar("S")
A = TypeVar("A")
C = TypeVar("C", bound=type)
F = TypeVar("F", bound=Callable[..., Any])

_SOURCE = "__derived_from__"  # set on each built function: the async function it runs


def _built(fn: Callable[..., Any], method: F, returns: str | None = None) -> F:
    """`method` dressed as `fn`: its name, docstring and signature (`returns` in place of its return
    annotation), marked for `derived`. Not `functools.wraps`: a `__wrapped__` would make tools that
    unwrap (the API reference's) document the async function in place of this one."""
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    sig = inspect.signature(fn)
    method.__signature__ = sig if returns is None else sig.replace(return_annotation=returns)  # type: ignore[attr-defined]
    setattr(method, _SOURCE, fn)
    return method


def blocking(
    fn: Callable[Concatenate[S, P], Coroutine[Any, Any, R]], *, here: bool = False
) -> Callable[Concatenate[Any, P], R]:
    """The sync method of coroutine method `fn`: it runs `fn` on the object's loop thread and returns
    its result (or raises its error) in the calling thread. With `here`, on the calling thread itself
    when the object allows it (its `_runs_here`): a write's hand-offs halve."""

    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if not (here and self._runs_here) or in_a_loop():
            return self._loop.run(fn(self._async, *args, **kwargs))  # type: ignore[no-any-return]
        token = MAY_BLOCK.set(True)  # copied into the call's task on this thread's own loop only
        try:
            return self._loop.run(fn(self._async, *args, **kwargs), here=True)  # type: ignore[no-any-return]
        finally:
            MAY_BLOCK.reset(token)

    return _built(fn, method)


def direct(fn: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[Any, P], R]:
    """The sync method of plain method `fn` (one that does no I/O): called on the async object as it is."""

    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return fn(self._async, *args, **kwargs)

    return _built(fn, method)


def wrapping(
    fn: Callable[Concatenate[S, P], R], into: Callable[[R, LoopThread], T]
) -> Callable[Concatenate[Any, P], T]:
    """The sync method of plain method `fn` that returns an async object: its result wrapped by
    `into(result, loop)` (a sync class of its own, sharing this object's loop thread)."""

    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return into(fn(self._async, *args, **kwargs), self._loop)

    return _built(fn, method, returns=into.__name__)


class Forwarded(property, Generic[T]):
    """A property that reads the async object's property of the same name (see `forwarded`)."""

    @overload
    def __get__(self, obj: None, owner: type | None = None, /) -> Forwarded[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None, /) -> T: ...

    def __get__(self, obj: object, owner: type | None = None, /) -> Any:
        """The async object's value; the property itself when read on the class."""
        return super().__get__(obj, owner)


def forwarded(prop: Callable[[Any], T]) -> Forwarded[T]:
    """The sync property of async property `prop` (mypy reads a property on its class as its getter,
    hence the type): the same value, the same docstring."""
    if not isinstance(prop, property) or prop.fget is None:
        raise TypeError(f"forwarded takes a property, got {type(prop).__name__}")
    getter = prop.fget

    def read(self: Any) -> T:
        return getter(self._async)

    forward: Forwarded[T] = Forwarded(_built(getter, read))
    forward.__doc__ = prop.__doc__  # a property subclass keeps its class's docstring unless told
    return forward


def _function(member: object) -> Any:
    """A class member's function: a property's getter, or the member itself."""
    return member.fget if isinstance(member, property) else member


def derived(source: type) -> Callable[[C], C]:
    """Class decorator: each member built by this module is renamed into the decorated class (its
    `__qualname__` and `__module__`, so reprs, pickling and the API reference place it there), and
    must run the `source` member of its own name (`fetch = blocking(Async.list)` is refused at import)."""

    def rename(cls: C) -> C:
        for name, value in vars(cls).items():
            fn = _function(value)
            runs = getattr(fn, _SOURCE, None)
            if fn is None or runs is None:
                continue
            if runs is not _function(inspect.getattr_static(source, name, None)):
                raise TypeError(f"{cls.__name__}.{name} does not run {source.__name__}.{name}")
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
            fn.__module__ = cls.__module__
            if isinstance(value, Forwarded):
                value.__module__ = cls.__module__  # inspection reads a property's home from it
        return cls

    return rename


class SyncFacade(Closing, Generic[A]):
    """A sync class over one async object, with its own loop thread: closing, once, and with-blocks.

    Subclasses open their async object in `__init__`, pass it here, and say in `_closing` which of
    its coroutines closes it.
    """

    def __init__(self, facade: A) -> None:
        """Hold `facade` and start the loop thread its coroutines run on."""
        self._async = facade
        self._loop = LoopThread()
        self._runs_here = False  # whether `blocking(..., here=True)` members may run on the caller's thread

    def _closing(self) -> Coroutine[Any, Any, None]:
        """The async object's close, as a coroutine to run last on the loop."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the store: calls already running in other threads finish first, then the engine (and
        what the facade opened with it) closes and the loop thread stops. Later calls raise
        RuntimeError; closing again does nothing."""
        self._loop.close(self._closing)
