"""Strict reading of a tool call's JSON arguments: an object, closed to unknown keys, with errors that name
the tool and the field.

The values inside are checked by the engine's own rules (`api.validate`: `check_text`, `check_int`...,
with `json_type` naming a wrong value's type), through the field kinds of `tools.fields`. An
error reads `memory_list: \\`filter.kinds\\` \\`memo\\` is not an item kind`, so a host can hand it to the
model as the tool's output. A `namespace` or `reach` key anywhere in a call is refused before any field
is read: the host fixes both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tinymemory.api import HOST_FIXED_FIELDS, InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.api.validate import fail, json_type, unknown_argument

Obj = Mapping[str, Any]


def path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


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
        raise InvalidRequest(f"{tool}: arguments must be an object, got {json_type(arguments)}")
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
        raise fail(tool, where or "arguments", f"must be an object, got {json_type(obj)}")
    for key in obj:
        if not isinstance(key, str) or key not in allowed:
            raise unknown_argument(tool, path(where, echo(key, 40)), allowed)
    return obj
