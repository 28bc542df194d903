"""Strict reading of JSON values: typed, bounded, encodable, and errors that name the tool and the field.

These are the pieces every field kind (`tools.fields`) is built from, shared by both tool surfaces. An
error reads `memory_list: \\`filter.kinds\\` \\`memo\\` is not an item kind`, so a host can hand it to the
model as the tool's output. A `namespace` or `reach` key anywhere in a call is refused before any field
is read: the host fixes both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from tinymemory.api import HOST_FIXED_FIELDS, InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.api.validate import MAX_FIELD_CHARS, check_unicode
from tinymemory.api.validate import fail as fail  # re-exported: every field kind's errors

Obj = Mapping[str, Any]


def path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def clip(value: object, limit: int = 60) -> str:
    """A value quoted in a message: short, UTF-8 safe, never raising (see api.echo)."""
    return echo(value, limit)


def type_name(value: object) -> str:
    """The JSON type a value has, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def read_arguments(tool: str, arguments: object) -> Obj:
    """The call's arguments as an object; JSON text is parsed, None means no arguments."""
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str | bytes):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            raise InvalidRequest(f"{tool}: arguments are not valid json") from None
    if not isinstance(arguments, Mapping):
        raise InvalidRequest(f"{tool}: arguments must be an object, got {type_name(arguments)}")
    refuse_host_fixed(tool, arguments)
    return arguments


def refuse_host_fixed(tool: str, arguments: object) -> None:
    """A `namespace` or `reach` key at any depth is an attempt to choose scope: refuse it, loudly."""
    stack: list[tuple[object, str]] = [(arguments, "")]
    seen: set[int] = set()
    while stack:
        value, where = stack.pop()
        if isinstance(value, Mapping | list | tuple):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, Mapping):
            for key in value:
                if isinstance(key, str) and key in HOST_FIXED_FIELDS:
                    raise fail(
                        tool,
                        path(where, key),
                        "is fixed by the host: tools never take a namespace or a reach",
                    )
            stack.extend((v, path(where, str(k))) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(value))


def closed(tool: str, obj: object, allowed: tuple[str, ...], where: str) -> Obj:
    """`obj` must be an object whose keys are all in `allowed`."""
    if not isinstance(obj, Mapping):
        raise fail(tool, where or "arguments", f"must be an object, got {type_name(obj)}")
    for key in obj:
        if not isinstance(key, str) or key not in allowed:
            known = ", ".join(allowed) or "none"
            raise fail(tool, path(where, clip(key, 40)), f"is not a known argument (known: {known})")
    return obj


def check_text(tool: str, field: str, value: object, *, max_chars: int = MAX_FIELD_CHARS) -> str:
    """A non-blank, bounded, encodable string."""
    if not isinstance(value, str):
        raise fail(tool, field, f"must be a string, got {type_name(value)}")
    if not value.strip():
        raise fail(tool, field, "must not be blank")
    if len(value) > max_chars:
        raise fail(tool, field, f"is longer than {max_chars} characters")
    return check_unicode(tool, field, value)


def read_str(
    tool: str, obj: Obj, key: str, where: str, *, required: bool = False, max_chars: int = MAX_FIELD_CHARS
) -> str | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        if required:
            raise fail(tool, field, "is required")
        return None
    return check_text(tool, field, value, max_chars=max_chars)


def read_int(tool: str, obj: Obj, key: str, where: str) -> int | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(tool, field, f"must be an integer, got {type_name(value)}")
    return value


def read_number(tool: str, obj: Obj, key: str, where: str, *, low: float, high: float) -> float | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(tool, field, f"must be a number, got {type_name(value)}")
    if not low <= value <= high:  # before float(): exact for huge ints, False for NaN
        raise fail(tool, field, f"must be between {low:g} and {high:g}, got {clip(value)}")
    return float(value)
