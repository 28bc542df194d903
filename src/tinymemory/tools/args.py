"""Strict argument reading: every value typed and bounded, unknown keys refused, host-fixed keys refused.

Errors name the tool and the field (`memory_list: \\`filter.kinds\\` \\`memo\\` is not an item kind`) so a
host can hand them to the model as the tool's output. JSON `null` on an optional field means "not given".
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from tinymemory.api import HOST_FIXED_FIELDS, InvalidRequest, ItemKind, MetaFilter, TimeHint, parse_rfc3339
from tinymemory.api.echo import echo
from tinymemory.api.validate import (
    MAX_FIELD_CHARS,
    MAX_QUERY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    check_filter,
    check_ids,
    check_limit,
)
from tinymemory.tools.spec import DEFAULT_LIMIT, MAX_IDS, MAX_LIMIT

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # fullmatch: `$` would allow a trailing newline
MAX_ID_CHARS = 256
MAX_CURSOR_CHARS = 4096

Obj = Mapping[str, Any]


def fail(tool: str, field: str, problem: str) -> InvalidRequest:
    return InvalidRequest(f"{tool}: `{field}` {problem}")


def path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def clip(value: object, limit: int = 60) -> str:
    """A value quoted in a message: short, UTF-8 safe, never raising (see api.echo)."""
    return echo(value, limit)


def _type_name(value: object) -> str:
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


type_name = _type_name  # the JSON type a value has, for messages (tools.fields reads with it too)


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
        raise InvalidRequest(f"{tool}: arguments must be an object, got {_type_name(arguments)}")
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
        raise fail(tool, where or "arguments", f"must be an object, got {_type_name(obj)}")
    for key in obj:
        if not isinstance(key, str) or key not in allowed:
            known = ", ".join(allowed) or "none"
            raise fail(tool, path(where, clip(key, 40)), f"is not a known argument (known: {known})")
    return obj


def _unicode(tool: str, field: str, text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise fail(tool, field, "is not valid unicode") from None
    return text


def check_text(tool: str, field: str, value: object, *, max_chars: int = MAX_FIELD_CHARS) -> str:
    """A non-blank, bounded, encodable string."""
    if not isinstance(value, str):
        raise fail(tool, field, f"must be a string, got {_type_name(value)}")
    if not value.strip():
        raise fail(tool, field, "must not be blank")
    if len(value) > max_chars:
        raise fail(tool, field, f"is longer than {max_chars} characters")
    return _unicode(tool, field, value)


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


def read_str_list(
    tool: str,
    obj: Obj,
    key: str,
    where: str,
    *,
    max_items: int,
    max_chars: int = MAX_FIELD_CHARS,
    required: bool = False,
) -> tuple[str, ...] | None:
    """Strings stripped and de-duplicated, order kept."""
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        if required:
            raise fail(tool, field, "is required")
        return None
    if not isinstance(value, list | tuple):
        raise fail(tool, field, f"must be an array of strings, got {_type_name(value)}")
    if len(value) > max_items:
        raise fail(tool, field, f"has more than {max_items} items")
    out = [check_text(tool, f"{field}[{i}]", item, max_chars=max_chars) for i, item in enumerate(value)]
    return tuple(dict.fromkeys(s.strip() for s in out))


def read_enum(
    tool: str, obj: Obj, key: str, where: str, choices: tuple[str, ...], what: str, *, required: bool = False
) -> str | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        if required:
            raise fail(tool, field, f"is required (one of: {', '.join(choices)})")
        return None
    if not isinstance(value, str) or value not in choices:
        raise fail(tool, field, f"`{clip(value)}` is not {what} (one of: {', '.join(choices)})")
    return value


def read_int(tool: str, obj: Obj, key: str, where: str) -> int | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(tool, field, f"must be an integer, got {_type_name(value)}")
    return value


def read_number(tool: str, obj: Obj, key: str, where: str, *, low: float, high: float) -> float | None:
    field = path(where, key)
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(tool, field, f"must be a number, got {_type_name(value)}")
    if not low <= value <= high:  # before float(): exact for huge ints, False for NaN
        raise fail(tool, field, f"must be between {low:g} and {high:g}, got {clip(value)}")
    return float(value)


def read_limit(tool: str, obj: Obj) -> int:
    value = read_int(tool, obj, "limit", "")
    return DEFAULT_LIMIT if value is None else check_limit(tool, value, maximum=MAX_LIMIT)


def read_cursor(tool: str, obj: Obj) -> str | None:
    return read_str(tool, obj, "cursor", "", max_chars=MAX_CURSOR_CHARS)


def read_ids(tool: str, obj: Obj, *, required: bool = True) -> tuple[str, ...] | None:
    value = obj.get("ids")
    if value is None:
        if required:
            raise fail(tool, "ids", "is required")
        return None
    if not isinstance(value, list | tuple):
        raise fail(tool, "ids", f"must be an array of ids, got {_type_name(value)}")
    ids = check_ids(tool, value, maximum=MAX_IDS)
    for i, one in enumerate(ids):
        _unicode(tool, f"ids[{i}]", one)
        if len(one) > MAX_ID_CHARS:
            raise fail(tool, f"ids[{i}]", f"is longer than {MAX_ID_CHARS} characters")
    return ids


FILTER_KEYS: tuple[str, ...] = (
    "kinds",
    "sources",
    "tags_any",
    "workspace",
    "folder",
    "file_path",
    "repo",
    "url",
    "thread_id",
    "agent_id",
    "observed_after",
    "observed_before",
)
_FILTER_STRINGS = ("workspace", "folder", "file_path", "repo", "url", "thread_id", "agent_id")


def read_filter(tool: str, obj: Obj, key: str = "filter") -> MetaFilter:
    """The model filter: a subset of MetaFilter without namespace or reach (the scope adds the reach)."""
    raw = obj.get(key)
    if raw is None:
        return MetaFilter()
    flt = closed(tool, raw, FILTER_KEYS, key)
    kinds: list[ItemKind] = []
    raw_kinds = flt.get("kinds")
    if raw_kinds is not None:
        if not isinstance(raw_kinds, list | tuple):
            raise fail(tool, f"{key}.kinds", f"must be an array of item kinds, got {_type_name(raw_kinds)}")
        for k in raw_kinds:
            if not isinstance(k, str) or k not in ItemKind.values():
                raise fail(tool, f"{key}.kinds", f"`{clip(k)}` is not an item kind")
            kinds.append(ItemKind(k))
    strings = {name: read_str(tool, flt, name, key) for name in _FILTER_STRINGS}
    by_name: dict[str, Any] = dict(strings)
    times: dict[str, datetime | None] = {}
    for name in ("observed_after", "observed_before"):
        value = flt.get(name)
        if value is None:
            times[name] = None
            continue
        times[name] = parse_rfc3339(value, field=f"{key}.{name}", op=tool)
    built = MetaFilter(
        kinds=tuple(dict.fromkeys(kinds)),
        sources=read_str_list(tool, flt, "sources", key, max_items=MAX_TAGS) or (),
        tags_any=read_str_list(tool, flt, "tags_any", key, max_items=MAX_TAGS, max_chars=MAX_TAG_CHARS) or (),
        observed_after=times["observed_after"],
        observed_before=times["observed_before"],
        **by_name,
    )
    return check_filter(tool, built, field=key)


def read_refers_to(tool: str, obj: Obj, zone: tzinfo | None) -> TimeHint | None:
    """Local calendar days -> a half-open UTC interval, [start of `from`, start of the day after `to`)."""
    raw = obj.get("refers_to")
    if raw is None:
        return None
    rt = closed(tool, raw, ("from", "to"), "refers_to")
    first = _read_date(tool, rt, "from", required=True)
    assert first is not None
    last = _read_date(tool, rt, "to", required=False) or first
    if last < first:
        raise fail(tool, "refers_to.to", "is before `refers_to.from`")
    try:
        start = _local_midnight(first, zone)
        end = _local_midnight(last + timedelta(days=1), zone)
    except (OverflowError, ValueError):
        raise fail(tool, "refers_to", "is out of the supported date range") from None
    return TimeHint(start, end)


def _read_date(tool: str, obj: Obj, key: str, *, required: bool) -> date | None:
    field = f"refers_to.{key}"
    value = obj.get(key)
    if value is None:
        if required:
            raise fail(tool, field, "is required")
        return None
    if not isinstance(value, str) or not _DATE_RE.fullmatch(value):
        raise fail(tool, field, f"`{clip(value)}` is not a date (YYYY-MM-DD)")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise fail(tool, field, f"`{clip(value)}` is not a date (YYYY-MM-DD)") from None


def _local_midnight(day: date, zone: tzinfo | None) -> datetime:
    if zone is None:
        return datetime.combine(day, time()).astimezone().astimezone(UTC)
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


def read_query(tool: str, obj: Obj, key: str) -> str:
    value = read_str(tool, obj, key, "", required=True, max_chars=MAX_QUERY_CHARS)
    assert value is not None
    return value
