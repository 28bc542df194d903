"""The seven memory_ tools' arguments, each declared once (`tools.fields`): schemas, reading, validation.

`tools.spec` builds the schemas a host's model sees from these declarations, and `tools.read` and
`tools.write` read calls through the same ones, so the two cannot drift apart. Bounds the engines
check too (ids, cursors, text lengths, the default limit) come from `api`; the tools narrow `limit` to
1..50 and `ids` to 1..200. Errors name the tool and the field (`memory_list: \\`filter.kinds\\`
\\`memo\\` is not an item kind`) so a host can hand them to the model as the tool's output.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from tinymemory.api import DEFAULT_LIMIT, ItemKind, MetaFilter, TimeHint, parse_rfc3339
from tinymemory.api.validate import (
    MAX_CURSOR_CHARS,
    MAX_FIELD_CHARS,
    MAX_ID_CHARS,
    MAX_QUERY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    check_filter,
    check_ids,
    check_limit,
)
from tinymemory.tools.strict import (
    Obj,
    check_text,
    check_unicode,
    clip,
    closed,
    fail,
    path,
    read_arguments,
    read_int,
    read_number,
    read_str,
    refuse_host_fixed,
    type_name,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_IDS",
    "MAX_LIMIT",
    "MIN_LIMIT",
    "Obj",
    "check_text",
    "clip",
    "closed",
    "fail",
    "path",
    "read_arguments",
    "read_int",
    "read_number",
    "read_str",
    "refuse_host_fixed",
    "type_name",
]

MIN_LIMIT = 1
MAX_LIMIT = 50  # the tools' bound; engines accept up to api.MAX_LIMIT
MAX_IDS = 200  # the tools' bound; engines accept up to api.MAX_IDS
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # fullmatch: `$` would allow a trailing newline


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
        raise fail(tool, field, f"must be an array of strings, got {type_name(value)}")
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
        raise fail(tool, "ids", f"must be an array of ids, got {type_name(value)}")
    ids = check_ids(tool, value, maximum=MAX_IDS)
    for i, one in enumerate(ids):
        check_unicode(tool, f"ids[{i}]", one)
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
            raise fail(tool, f"{key}.kinds", f"must be an array of item kinds, got {type_name(raw_kinds)}")
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
