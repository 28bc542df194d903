"""mem0's metadata filters, evaluated over a memory's payload.

The session ids in a filter become the read's scope (scope.py); every other key is matched here, after
the engine has read within that scope, so a filter only ever narrows what the scope already allows.
The language is mem0's: `{"key": value}` equality, `{"key": "*"}` (the key is present),
`{"key": {"eq"|"ne"|"in"|"nin"|"gt"|"gte"|"lt"|"lte"|"contains"|"icontains": ...}}`, and the
logical lists `AND`, `OR`, `NOT`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tinymemory.api.echo import echo
from tinymemory.compat.mem0.errors import invalid

Predicate = Callable[[Mapping[str, Any]], bool]
_LOGICAL = ("AND", "OR", "NOT")
_OPERATORS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains")
_MISSING = object()
MAX_DEPTH = 32


def compile_filter(op: str, spec: Mapping[str, Any], depth: int = 0) -> Predicate | None:
    """A predicate for the non-scope part of `spec`, or None when nothing is left to match.
    Raises InvalidInput naming the key for an unknown operator or a malformed logical list, and for
    logical lists nested deeper than MAX_DEPTH (matching them would exhaust the stack)."""
    if depth > MAX_DEPTH:
        raise invalid(op, "filters", f"nests AND/OR/NOT lists deeper than {MAX_DEPTH} levels")
    parts = [_clause(op, key, value, depth) for key, value in spec.items()]
    if not parts:
        return None
    return lambda payload: all(p(payload) for p in parts)


def _clause(op: str, key: object, value: Any, depth: int) -> Predicate:
    if not isinstance(key, str):
        raise invalid(op, "filters", f"keys must be strings, got {echo(key)}")
    if key in _LOGICAL:
        if not isinstance(value, list) or not value or not all(isinstance(c, Mapping) for c in value):
            raise invalid(op, f"filters.{key}", "must be a non-empty list of filter dicts")
        subs = [compile_filter(op, c, depth + 1) or (lambda _p: True) for c in value]
        if key == "AND":
            return lambda p: all(s(p) for s in subs)
        if key == "OR":
            return lambda p: any(s(p) for s in subs)
        return lambda p: not any(s(p) for s in subs)
    if isinstance(value, Mapping):
        tests = [_operator(op, key, name, arg) for name, arg in value.items()]
        return lambda p: all(t(p.get(key, _MISSING)) for t in tests)
    if value == "*":
        return lambda p: p.get(key, _MISSING) is not _MISSING
    return lambda p: _equal(p.get(key, _MISSING), value)


def _operator(op: str, key: str, name: object, arg: Any) -> Callable[[Any], bool]:
    where = f"filters.{echo(key, 40)}"
    if name == "eq":
        return lambda v: _equal(v, arg)
    if name == "ne":
        return lambda v: not _equal(v, arg)
    if name in ("in", "nin"):
        if not isinstance(arg, list | tuple):
            raise invalid(op, f"{where}.{name}", "must be a list")
        hit: Callable[[Any], bool] = lambda v: any(_equal(v, a) for a in arg)  # noqa: E731
        return hit if name == "in" else (lambda v: not hit(v))
    if name in ("gt", "gte", "lt", "lte"):
        if isinstance(arg, bool) or not isinstance(arg, int | float | str):
            raise invalid(op, f"{where}.{name}", "must be a number or a string")
        return lambda v: _compare(v, str(name), arg)
    if name in ("contains", "icontains"):
        if not isinstance(arg, str):
            raise invalid(op, f"{where}.{name}", "must be a string")
        fold = name == "icontains"
        return lambda v: _contains(v, arg, fold)
    raise invalid(
        op,
        where,
        f"`{echo(name)}` is not a filter operator (one of: {', '.join(_OPERATORS)})",
    )


def _equal(value: Any, want: Any) -> bool:
    if value is _MISSING:
        return False
    if isinstance(value, bool) or isinstance(want, bool):
        return isinstance(value, bool) and isinstance(want, bool) and value == want
    return bool(value == want)


def _compare(value: Any, name: str, arg: int | float | str) -> bool:
    numeric = isinstance(arg, int | float)
    if value is _MISSING or isinstance(value, bool):
        return False
    if numeric != isinstance(value, int | float) or (not numeric and not isinstance(value, str)):
        return False
    if name == "gt":
        return bool(value > arg)
    if name == "gte":
        return bool(value >= arg)
    if name == "lt":
        return bool(value < arg)
    return bool(value <= arg)


def _contains(value: Any, needle: str, fold: bool) -> bool:
    if isinstance(value, str):
        return needle.lower() in value.lower() if fold else needle in value
    if isinstance(value, list):
        return any(_contains(v, needle, fold) for v in value)
    return False
