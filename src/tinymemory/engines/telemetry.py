"""One structured log record, and optionally one OpenTelemetry span, per engine operation.

Both engines wrap their public operations with `operation(name)`, so a host sees the same fields
whichever engine serves it: the operation, the engine, the namespace root it touched, the duration,
counts such as hits or written, and the outcome with the error class on failure.

Privacy: nothing a caller wrote is recorded. No memory text, query, metadata value or error message
(messages may quote input); of a namespace only its first `kind:name` segment (the tenant).

Quiet by default: records go to the `tinymemory.engine` logger, which holds a NullHandler, so nothing
prints unless the host configures logging. Spans are made only when the host process has imported
`opentelemetry.trace` (setting up a tracer provider does) or handed a provider to
`set_tracer_provider`. This module never imports OpenTelemetry itself: the import costs about 30 ms,
and without it an operation pays two clock reads and a few dictionary look-ups.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from tinymemory._version import __version__
from tinymemory.api.engine import EngineDescriptor
from tinymemory.api.errors import Conflict, TinyMemoryError, Unavailable
from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Namespace, Reach, ReachMode

LOGGER_NAME = "tinymemory.engine"
SPAN_PREFIX = "tinymemory."
WHOLE_STORE = "*"  # the read is not confined to any namespace
TREE_ROOT = "/"  # the root node of the namespace tree itself
UNKNOWN = "?"  # the request was malformed; the scope could not be read
_MAX_ROOTS = 4

log = logging.getLogger(LOGGER_NAME)
log.addHandler(logging.NullHandler())  # the library prints nothing unless the host configures logging

P = ParamSpec("P")
R = TypeVar("R")
Fields = dict[str, str | int | float]


class _Described(Protocol):
    @property
    def descriptor(self) -> EngineDescriptor: ...


E = TypeVar("E", bound=_Described)


# -- scope: which namespace roots a request touches -------------------------------------------------


def _namespace_root(ns: object) -> str | None:
    if not isinstance(ns, Namespace):
        return None
    return str(ns.segments[0]) if ns.segments else TREE_ROOT


def _reach_roots(reach: object) -> set[str] | None:
    """The roots a reach confines to; None when it does not confine (absent, or the whole tree)."""
    if not isinstance(reach, Reach):
        return None
    roots: set[str] = set()
    for term in reach.terms:
        if not term.namespace.segments and term.mode is ReachMode.SUBTREE:
            return None
        roots.add(_namespace_root(term.namespace) or UNKNOWN)
    return roots or None


def _filter_roots(flt: object) -> set[str] | None:
    if not isinstance(flt, MetaFilter):
        return None
    if flt.namespace is not None:
        return {_namespace_root(flt.namespace) or UNKNOWN}
    return _reach_roots(flt.reach)


def _joined(roots: set[str] | None) -> str:
    if not roots:
        return WHOLE_STORE
    ordered = sorted(roots)
    if len(ordered) > _MAX_ROOTS:
        ordered = [*ordered[:_MAX_ROOTS], f"(+{len(ordered) - _MAX_ROOTS})"]
    return ",".join(ordered)


def _item_roots(items: object) -> str:
    if not isinstance(items, list | tuple):
        return UNKNOWN
    roots = {_namespace_root(getattr(getattr(it, "meta", None), "namespace", None)) for it in items}
    return _joined({r or UNKNOWN for r in roots}) if items else WHOLE_STORE


def _store_scope(item: object) -> str:
    return _item_roots([item])


def _records_scope(records: object) -> str:
    if not isinstance(records, list | tuple):
        return UNKNOWN
    return _item_roots([getattr(r, "item", None) for r in records])


def _read_scope(request: object) -> str:
    return _joined(_filter_roots(getattr(request, "filter", None)))


def _reach_scope(request: object) -> str:
    return _joined(_reach_roots(getattr(request, "reach", None)))


def _forget_scope(request: object) -> str:
    roots = _filter_roots(getattr(request, "filter", None))
    return _joined(roots if roots is not None else _reach_roots(getattr(request, "reach", None)))


# -- counts: what the result says, as numbers (never its content) -------------------------------------


def _store_counts(result: Any) -> Fields:
    return {"written": 0 if result.replayed else 1, "replayed": int(result.replayed)}


def _store_many_counts(results: Any) -> Fields:
    replayed = sum(1 for r in results if r.replayed)
    return {"items": len(results), "written": len(results) - replayed, "replayed": replayed}


def _fetch_counts(result: Any) -> Fields:
    return {"hits": len(result.hits), "mode": str(result.mode.value)}


def _hits(result: Any) -> Fields:
    return {"hits": len(result.hits)}


def _recall_counts(result: Any) -> Fields:
    return {"hits": len(result.citations)}


def _list_counts(result: Any) -> Fields:
    return {"items": len(result.items)}


def _get_counts(result: Any) -> Fields:
    return {"items": len(result.items), "missing": len(result.missing)}


def _explore_counts(result: Any) -> Fields:
    return {"buckets": len(result.buckets), "total": int(result.total)}


def _forget_counts(result: Any) -> Fields:
    return {"forgotten": len(result.forgotten), "skipped": len(result.skipped)}


def _purge_counts(result: Any) -> Fields:
    return {"purged": int(result.purged)}


def _import_counts(result: Any) -> Fields:
    return {"imported": int(result.imported), "skipped": int(result.skipped)}


@dataclass(frozen=True, slots=True)
class _Op:
    """How one operation is described: its level on success, its scope and its counts."""

    name: str
    level: int
    scope: Callable[[object], str]
    counts: Callable[[Any], Fields]


# Reads and stores are frequent: DEBUG. Forget, purge and import change what is remembered and are
# rare, so an operator watching INFO sees them.
_OPS: dict[str, _Op] = {
    op.name: op
    for op in (
        _Op("store", logging.DEBUG, _store_scope, _store_counts),
        _Op("store_many", logging.DEBUG, _item_roots, _store_many_counts),
        _Op("fetch", logging.DEBUG, _read_scope, _fetch_counts),
        _Op("recall", logging.DEBUG, _read_scope, _recall_counts),
        _Op("list", logging.DEBUG, _read_scope, _list_counts),
        _Op("get", logging.DEBUG, _reach_scope, _get_counts),
        _Op("explore", logging.DEBUG, _read_scope, _explore_counts),
        _Op("expand", logging.DEBUG, _read_scope, _hits),
        _Op("forget", logging.INFO, _forget_scope, _forget_counts),
        _Op("purge", logging.INFO, _reach_scope, _purge_counts),
        _Op("import", logging.INFO, _records_scope, _import_counts),
    )
}
OPERATIONS = frozenset(_OPS)


def _failure_level(exc: BaseException) -> int:
    """A caller's mistake is INFO; the store failing (or refusing, as a schema mismatch) is WARNING; a
    bug (an exception that is not ours) is ERROR; a cancelled call is DEBUG."""
    if isinstance(exc, asyncio.CancelledError):
        return logging.DEBUG
    if isinstance(exc, Unavailable | Conflict):
        return logging.WARNING
    if isinstance(exc, TinyMemoryError):
        return logging.INFO
    return logging.ERROR


def _outcome(exc: BaseException | None) -> str:
    if exc is None:
        return "ok"
    return "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"


# -- spans --------------------------------------------------------------------------------------------

_provider: Any = None  # a provider the host handed over, else the global one is used
_tracers: dict[int, Any] = {}  # id(provider or the trace module) -> tracer


def set_tracer_provider(provider: Any) -> None:
    """Make spans with this OpenTelemetry TracerProvider instead of the global one (None: back to the
    global). For hosts that keep a provider of their own, and for tests."""
    global _provider
    _provider = provider
    _tracers.clear()


def _tracer() -> Any:
    """The tracer, or None when OpenTelemetry is not in use by this process (never imports it)."""
    source = _provider if _provider is not None else sys.modules.get("opentelemetry.trace")
    if source is None:
        return None
    tracer = _tracers.get(id(source))
    if tracer is None:
        tracer = _tracers[id(source)] = source.get_tracer("tinymemory", __version__)
    return tracer


def _mark_failed(span: Any, exc: BaseException) -> None:
    span.set_attribute("tinymemory.outcome", _outcome(exc))
    if isinstance(exc, asyncio.CancelledError):
        return
    name = type(exc).__name__
    span.set_attribute("error.type", name)
    trace = sys.modules.get("opentelemetry.trace")
    if trace is not None:  # the class name only: a message may quote the caller's input
        span.set_status(trace.Status(trace.StatusCode.ERROR, name))


# -- the decorator ------------------------------------------------------------------------------------


def _request(args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
    if args:
        return args[0]
    return next(iter(kwargs.values()), None)


def _scope(op: _Op, request: object) -> str:
    try:
        return op.scope(request)
    except Exception:  # a malformed request: validation reports it, the log must not fail on it
        return UNKNOWN


def _engine_name(engine: _Described) -> str:
    try:
        return engine.descriptor.name
    except Exception:  # pragma: no cover - both engines set it in __init__
        return UNKNOWN


def _record(
    op: _Op,
    engine: _Described,
    request: object,
    seconds: float,
    exc: BaseException | None,
    counts: Fields,
) -> None:
    level = op.level if exc is None else _failure_level(exc)
    if not log.isEnabledFor(level):
        return
    fields: Fields = {
        "operation": op.name,
        "engine": _engine_name(engine),
        "namespace_root": _scope(op, request),
        "duration_ms": round(seconds * 1000, 3),
        "outcome": _outcome(exc),
    }
    if exc is not None and not isinstance(exc, asyncio.CancelledError):
        fields["error"] = type(exc).__name__
    fields.update(counts)
    outcome = f"{fields['outcome']} {fields['error']}" if "error" in fields else fields["outcome"]
    detail = " ".join(f"{k}={v}" for k, v in fields.items() if k not in _IN_MESSAGE)
    log.log(level, "%s %s in %.2f ms (%s)", op.name, outcome, seconds * 1000, detail, extra=fields)


_IN_MESSAGE = frozenset({"operation", "outcome", "error", "duration_ms"})


def _counts(op: _Op, result: object) -> Fields:
    try:
        return op.counts(result)
    except Exception:  # pragma: no cover - every engine returns the contract's result types
        return {}


async def _traced(
    tracer: Any,
    op: _Op,
    fn: Callable[..., Awaitable[R]],
    engine: _Described,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> R:
    request = _request(args, kwargs)
    attributes = {
        "tinymemory.operation": op.name,
        "tinymemory.engine": _engine_name(engine),
        "tinymemory.namespace_root": _scope(op, request),
    }
    with tracer.start_as_current_span(
        SPAN_PREFIX + op.name, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        start = perf_counter()
        try:
            result = await fn(engine, *args, **kwargs)
        except BaseException as exc:
            seconds = perf_counter() - start
            _mark_failed(span, exc)
            _record(op, engine, request, seconds, exc, {})
            raise
        seconds = perf_counter() - start
        counts = _counts(op, result)
        if span.is_recording():
            span.set_attribute("tinymemory.outcome", "ok")
            for key, value in counts.items():
                span.set_attribute(f"tinymemory.{key}", value)
        _record(op, engine, request, seconds, None, counts)
        return result


def operation(
    name: str,
) -> Callable[
    [Callable[Concatenate[E, P], Awaitable[R]]],
    Callable[Concatenate[E, P], Coroutine[Any, Any, R]],
]:
    """Wrap an engine's async method `name` (one of OPERATIONS) with its log record and span.

    The method's behaviour is untouched: its result and exceptions pass through as they are.
    """
    op = _OPS[name]

    def wrap(
        fn: Callable[Concatenate[E, P], Awaitable[R]],
    ) -> Callable[Concatenate[E, P], Coroutine[Any, Any, R]]:
        @functools.wraps(fn)
        async def call(engine: E, /, *args: P.args, **kwargs: P.kwargs) -> R:
            tracer = _tracer()
            if tracer is not None:
                return await _traced(tracer, op, fn, engine, args, kwargs)
            start = perf_counter()
            try:
                result = await fn(engine, *args, **kwargs)
            except BaseException as exc:
                _record(op, engine, _request(args, kwargs), perf_counter() - start, exc, {})
                raise
            seconds = perf_counter() - start
            if log.isEnabledFor(op.level):
                _record(op, engine, _request(args, kwargs), seconds, None, _counts(op, result))
            return result

        return call

    return wrap
