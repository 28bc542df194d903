"""The arguments several memory_ tools share, each declared once (`tools.fields`): the model filter,
`refers_to`, `limit` and `cursor`. A field only one tool takes is declared in that tool's module
(`tools/catalog/`).

A tool's schema and its reading of a call come from the same declarations, so the two cannot drift
apart. Bounds the engines check too (ids, cursors, text lengths, the default limit) come from `api`;
the tools narrow `limit` to 1..50 and `ids` to 1..200. Errors name the tool and the field
(`memory_list: \\`filter.kinds\\` \\`memo\\` is not an item kind`) so a host can hand them to the model as
the tool's output.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from tinymemory.api import DEFAULT_LIMIT, ItemKind, MetaFilter, TimeHint
from tinymemory.api.validate import MAX_CURSOR_CHARS, MAX_TAG_CHARS, MAX_TAGS, check_filter, fail
from tinymemory.tools.fields import Day, EnumList, Integer, Object, Text, TextList, Timestamp, Values
from tinymemory.tools.strict import Obj, path

MIN_LIMIT = 1
MAX_LIMIT = 50  # the tools' bound; engines accept up to api.MAX_LIMIT
MAX_IDS = 200  # the tools' bound; engines accept up to api.MAX_IDS


# -- the model filter: a subset of MetaFilter without namespace or reach (the scope adds the reach) ------


def _equality(name: str, description: str) -> Text:
    return Text(name=name, description=description)


KINDS = EnumList(
    name="kinds",
    description="Only these item kinds.",
    choices=ItemKind.values(),
    what="an item kind",
    plural="item kinds",
)
SOURCES = TextList(
    name="sources",
    description="Only memory from these source kinds (agent, user, import, ...).",
    max_items=MAX_TAGS,
)
TAGS_ANY = TextList(
    name="tags_any",
    description="Only memory carrying at least one of these tags.",
    max_items=MAX_TAGS,
    max_chars=MAX_TAG_CHARS,
)
EQUALITY: tuple[Text, ...] = (
    _equality("workspace", "Only memory from this workspace."),
    _equality("folder", "Only memory from this folder."),
    _equality("file_path", "Only memory about this file path."),
    _equality("repo", "Only memory from this repository."),
    _equality("url", "Only memory from this URL."),
    _equality("thread_id", "Only memory from this conversation thread."),
    _equality("agent_id", "Only memory recorded by this agent."),
)
OBSERVED_AFTER = Timestamp(
    name="observed_after",
    description="Only memory recorded at or after this instant (RFC 3339, e.g. 2024-05-08T13:56:00Z).",
)
OBSERVED_BEFORE = Timestamp(
    name="observed_before", description="Only memory recorded before this instant (RFC 3339)."
)


def _to_filter(tool: str, got: Values, where: str) -> MetaFilter:
    equality: dict[str, Any] = {f.name: got[f] for f in EQUALITY}
    built = MetaFilter(
        kinds=tuple(ItemKind(k) for k in got[KINDS] or ()),
        sources=got[SOURCES] or (),
        tags_any=got[TAGS_ANY] or (),
        observed_after=got[OBSERVED_AFTER],
        observed_before=got[OBSERVED_BEFORE],
        **equality,
    )
    return check_filter(tool, built, field=where)


FILTER = Object(
    name="filter",
    description="Narrows what is searched. Every field set must match.",
    fields=(KINDS, SOURCES, TAGS_ANY, *EQUALITY, OBSERVED_AFTER, OBSERVED_BEFORE),
    build=_to_filter,
)

# -- refers_to: the days a question is about -----------------------------------------------------------


def _days(tool: str, got: Values, where: str) -> tuple[date, date]:
    first = got.must(DAY_FROM)
    last = got[DAY_TO] or first
    if last < first:
        raise fail(tool, path(where, "to"), f"is before `{path(where, 'from')}`")
    return first, last


DAY_FROM = Day(
    name="from", description="First day the question is about (YYYY-MM-DD, local date).", required=True
)
DAY_TO = Day(name="to", description="Last day the question is about (YYYY-MM-DD, local date; default: from).")
REFERS_TO = Object(
    name="refers_to",
    description=(
        "The days the question is about. Memory about those days ranks first; nothing is dropped. "
        "Unlike observed_after/observed_before, this matches what a memory is about, not when it was "
        "recorded."
    ),
    fields=(DAY_FROM, DAY_TO),
    build=_days,
)


def time_hint(tool: str, days: tuple[date, date] | None, zone: tzinfo | None) -> TimeHint | None:
    """Local calendar days -> a half-open UTC interval, [start of `from`, start of the day after `to`)."""
    if days is None:
        return None
    first, last = days
    try:
        start = _local_midnight(first, zone)
        end = _local_midnight(last + timedelta(days=1), zone)
    except (OverflowError, ValueError):
        raise fail(tool, REFERS_TO.name, "is out of the supported date range") from None
    return TimeHint(start, end)


def read_refers_to(tool: str, obj: Obj, zone: tzinfo | None) -> TimeHint | None:
    """`refers_to` of a call, read through its declaration and placed in `zone`."""
    return time_hint(tool, REFERS_TO.read(tool, obj), zone)


def _local_midnight(day: date, zone: tzinfo | None) -> datetime:
    if zone is None:
        return datetime.combine(day, time()).astimezone().astimezone(UTC)
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


# -- the paging fields several tools share ----------------------------------------------------------------


def limit_field(what: str = "") -> Integer:
    """`limit`, 1 to 50, absent meaning the default; `what` names what is counted in its description."""
    counted = f"{what} " if what else ""
    return Integer(
        name="limit",
        description=f"How many {counted}to return, {MIN_LIMIT} to {MAX_LIMIT} (default {DEFAULT_LIMIT}).",
        low=MIN_LIMIT,
        high=MAX_LIMIT,
        default=DEFAULT_LIMIT,
    )


LIMIT = limit_field()
CURSOR = Text(
    name="cursor",
    description="The next_cursor of the previous page, to continue where it stopped.",
    max_chars=MAX_CURSOR_CHARS,
)
