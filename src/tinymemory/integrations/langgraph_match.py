"""The matching rules of LangGraph's store, written once: value filters and namespace conditions.

They follow LangGraph's in-memory store (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, nested objects
compared field by field, lists element by element; `*` in a namespace pattern matches any one label;
a dotted key that is not itself a key of the value names a nested field, as in LangGraph's SQL stores),
with two deliberate differences: a filter is checked before anything is read, so an unknown operator
or a non-numeric bound is an InvalidRequest naming the field, and an ordering operator on a value
that is missing or not a number is no match (as in LangGraph's SQL stores) rather than a crash.
A top-level filter key follows the SQL stores' rule (letters, digits, `_`, `.`, `-`), so code written
against SqliteStore or PostgresStore meets the same refusal here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tinymemory.api import InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.integrations.langgraph_records import MAX_VALUE_DEPTH

_ORDERING = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}
OPERATORS = ("$eq", "$ne", *_ORDERING)
FILTER_KEY = re.compile(r"[A-Za-z0-9_.-]+")  # LangGraph's SQL stores' rule for a top-level key


class InvalidFilterKey(InvalidRequest, ValueError):
    """A top-level filter key outside the SQL stores' characters: an InvalidRequest of tinymemory's,
    and the ValueError LangGraph's SQL stores raise for it, so code catching either keeps working."""


def _number(value: object) -> float | None:
    """`value` as LangGraph's in-memory store reads a bound (`float(value)`), or None when it cannot."""
    try:
        return float(value)  # type: ignore[arg-type]  # what float() refuses is caught below
    except (TypeError, ValueError, OverflowError):
        return None


MAX_FILTER_DEPTH = MAX_VALUE_DEPTH  # as deep as a stored value may be nested


def _check_nesting(op: str, where: str, value: object, depth: int) -> None:
    """Refuse a filter value nested deeper than any stored value can be (comparing one recurses)."""
    if depth > MAX_FILTER_DEPTH:
        raise InvalidRequest(f"{op}: `{where}` is nested more than {MAX_FILTER_DEPTH} levels deep")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_nesting(op, f"{where}.{echo(k, 40)}", v, depth + 1)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_nesting(op, f"{where}[{i}]", v, depth + 1)


def check_filter(op: str, flt: object, field: str = "filter", depth: int = 0) -> None:
    """Refuse a filter that is not a dict of str keys, uses an unknown operator, orders against a
    bound that is not a number, or is nested deeper than a stored value may be."""
    if not isinstance(flt, Mapping):
        raise InvalidRequest(f"{op}: `{field}` must be a dict of field -> value, got {type(flt).__name__}")
    if depth > MAX_FILTER_DEPTH:
        raise InvalidRequest(f"{op}: `{field}` is nested more than {MAX_FILTER_DEPTH} levels deep")
    for key, want in flt.items():
        if not isinstance(key, str):
            raise InvalidRequest(f"{op}: `{field}` has a key that is not a string ({echo(key)})")
        if depth == 0 and FILTER_KEY.fullmatch(key) is None:
            raise InvalidFilterKey(
                f"{op}: Invalid filter key `{echo(key)}`: a filter key may hold only ASCII letters, digits,"
                " `_`, `.` and `-`"
            )
        where = f"{field}.{key}"
        if isinstance(want, Mapping) and any(isinstance(k, str) and k.startswith("$") for k in want):
            for name, bound in want.items():
                if name not in OPERATORS:
                    raise InvalidRequest(
                        f"{op}: `{where}` uses `{echo(name)}`, not an operator"
                        f" (one of: {', '.join(OPERATORS)})"
                    )
                if name in _ORDERING and _number(bound) is None:
                    raise InvalidRequest(f"{op}: `{where}.{name}` must be a number, got {echo(bound)}")
                _check_nesting(op, f"{where}.{name}", bound, depth + 2)
        elif isinstance(want, Mapping):
            check_filter(op, want, where, depth + 1)
        else:
            _check_nesting(op, where, want, depth + 1)


def _operator(value: Any, name: str, bound: Any) -> bool:
    if name == "$eq":
        return bool(value == bound)
    if name == "$ne":
        return bool(value != bound)
    left, right = _number(value), _number(bound)
    if left is None or right is None:
        return False
    return bool(_ORDERING[name](left, right))


def _compare(value: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in want):
            return all(_operator(value, name, bound) for name, bound in want.items())
        if not isinstance(value, Mapping):
            return False
        return all(_compare(value.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(want)
            and all(_compare(v, w) for v, w in zip(value, want, strict=True))
        )
    return bool(value == want)


def _lookup(value: Mapping[str, Any], key: str) -> Any:
    """The value a filter key names: the key itself, else (as LangGraph's SQL stores read a dotted
    key) the path of its dot-separated parts through nested objects; None when absent."""
    if key in value or "." not in key:
        return value.get(key)
    here: Any = value
    for part in key.split("."):
        if not isinstance(here, Mapping):
            return None
        here = here.get(part)
    return here


def matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether a stored value passes a (checked) filter; no filter passes everything."""
    return not flt or all(_compare(_lookup(value, k), want) for k, want in flt.items())


def check_condition(op: str, field: str, match_type: object, path: object) -> tuple[str, tuple[str, ...]]:
    """A namespace condition's type and path, refused unless `prefix`/`suffix` over a tuple of labels."""
    if match_type not in ("prefix", "suffix"):
        raise InvalidRequest(
            f"{op}: `{field}.match_type` must be `prefix` or `suffix`, got {echo(match_type)}"
        )
    if isinstance(path, str) or not isinstance(path, Sequence):
        raise InvalidRequest(f"{op}: `{field}.path` must be a tuple of labels")
    return str(match_type), tuple(path)


def condition_holds(match_type: str, path: tuple[str, ...], labels: tuple[str, ...]) -> bool:
    """A namespace matches a prefix (or suffix) pattern, `*` standing for any one label."""
    if len(labels) < len(path):
        return False
    pairs = (
        zip(labels, path, strict=False)
        if match_type == "prefix"
        else zip(reversed(labels), reversed(path), strict=False)
    )
    return all(want == "*" or have == want for have, want in pairs)
