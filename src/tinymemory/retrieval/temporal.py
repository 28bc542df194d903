"""Time hints: memory about the asked-for days ranks first; nothing is dropped.

Engines call `span_of` with whatever columns they hold and `partition_by_hint` on their ranked pool,
so every engine orders hinted results the same way. A question's own words give a derived hint
(`hint_from_query`, order words included) and the kind of time question it is (`time_question`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal, TypeVar

from tinymemory.api.filters import TimeHint
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.timeutil import utcnow
from tinymemory.retrieval.dates import PROBE, Found, event_range, find

T = TypeVar("T")


def span_of(
    event_from: datetime | None, event_to: datetime | None, observed_at: datetime | None
) -> tuple[datetime, datetime] | None:
    """The instants a memory is about: its event range if known (one end stands for both when the
    other is missing), else the instant it was observed."""
    if event_from is not None or event_to is not None:
        start = event_from if event_from is not None else event_to
        end = event_to if event_to is not None else event_from
        assert start is not None and end is not None
        return start, end
    if observed_at is not None:
        return observed_at, observed_at
    return None


def span_matches(start: datetime, end: datetime, hint: TimeHint) -> bool:
    """True when the closed span [start, end] overlaps the half-open window [hint.start, hint.end)."""
    return start < hint.end and end >= hint.start


def matches_hint(item: MemoryItem, hint: TimeHint) -> bool:
    """True when the memory's event range (else its observed instant) overlaps the hint's window."""
    meta = item.meta
    span = span_of(meta.event_from, meta.event_to, meta.observed_at)
    return span is not None and span_matches(span[0], span[1], hint)


def partition_by_hint(ranked: Sequence[T], hint: TimeHint | None, inside: Callable[[T], bool]) -> list[T]:
    """Stable partition: entries for which `inside` holds first, each group in its rank order."""
    if hint is None:
        return list(ranked)
    flags = [inside(r) for r in ranked]
    return [r for r, f in zip(ranked, flags, strict=True) if f] + [
        r for r, f in zip(ranked, flags, strict=True) if not f
    ]


def partition_items(
    ranked: Sequence[T], hint: TimeHint | None, item_of: Callable[[T], MemoryItem]
) -> list[T]:
    """`partition_by_hint` for ranked entries that carry decoded items."""
    if hint is None:
        return list(ranked)
    return partition_by_hint(ranked, hint, lambda r: matches_hint(item_of(r), hint))


def boost_by_hint(
    ranked: Sequence[tuple[T, float]], inside: Callable[[T], bool], boost: float
) -> list[tuple[T, float]]:
    """Soft boost for a hint read from the query itself: matching scores times (1 + boost), re-sorted.

    A derived hint may be wrong, so it only tilts the order; ties keep the incoming order.
    """
    if boost <= 0:
        return list(ranked)
    rescored = [(key, s * (1.0 + boost) if inside(key) else s) for key, s in ranked]
    order = sorted(range(len(rescored)), key=lambda i: (-rescored[i][1], i))
    return [rescored[i] for i in order]


def lift(ranked: Sequence[tuple[T, float]], inside: Callable[[T], bool]) -> list[tuple[T, float]]:
    """Entries for which `inside` holds first, each group in its own order: their scores are raised by
    the list's best, so the order survives a later merge that sorts by score (decomposed reads, links)."""
    top = max((s for _, s in ranked), default=0.0)
    first = [(key, s + top) for key, s in ranked if inside(key)]
    return first + [(key, s) for key, s in ranked if not inside(key)]


@lru_cache(maxsize=1024)
def names_one_day(query: str) -> bool:
    """Whether a question names one calendar day outright and no other time ("What did she watch on 1
    May 2022?", "the Sunday before 25 October 2022"): a day read without the anchor, so not a guess
    the way "yesterday" asked of a whole store is. Cached: it depends on the text alone."""
    found = find(query, PROBE)
    return len(found) == 1 and not found[0].span.relative and found[0].span.end - found[0].span.start == _DAY


# TimeHint has no open ends: "before May" reaches back to the first instant a datetime holds and
# "after May" forward to the last, so the window still holds everything on that side.
FAR_PAST = datetime.min.replace(tzinfo=UTC)
FAR_FUTURE = datetime.max.replace(tzinfo=UTC)

# An order word just before a time expression (or opening it: "since 2022" is one expression) turns the
# expression's days into one side of a window.
_BEFORE = "before|prior to|earlier than|until|till|up until|up to|by|no later than|through"
_AFTER = "after|later than|since|from"
_ORDER_TAIL = re.compile(rf"\b({_BEFORE}|{_AFTER})\s+(?:the\s+)?$")
_ORDER_HEAD = re.compile(rf"({_BEFORE}|{_AFTER})\s")
_EXCLUSIVE = {"before", "prior to", "earlier than", "after", "later than"}


def _window(low: str, found: Found) -> tuple[datetime, datetime]:
    """The instants one expression of a question asks about, given the order word before it if any."""
    span = found.span
    tail = _ORDER_TAIL.search(low, max(0, found.start - 20), found.start)
    head = _ORDER_HEAD.match(low, found.start)
    word = tail[1] if tail else head[1] if head else None
    if word is None or found.joined:
        return span.start, span.end  # plain, or a whole "from X to Y" range
    if word in ("after", "later than"):
        return span.end, FAR_FUTURE
    if word in ("since", "from"):
        return span.start, FAR_FUTURE
    if word in _EXCLUSIVE:
        return FAR_PAST, span.start  # before, prior to, earlier than
    return FAR_PAST, span.end  # until, by, up to, through: the named days included


_DAY = timedelta(days=1)


def _said_on(found: list[Found]) -> datetime | None:
    """The day a question's relative expressions count from when it names one day outright beside
    them ("What did she finish last Friday, on 23 January 2022?" asks as of that day, not as of the
    newest memory); None when it names no such day, or several."""
    days = [f.span for f in found if not f.span.relative and f.span.end - f.span.start == _DAY]
    if len(days) != 1 or not any(f.span.relative for f in found):
        return None
    return days[0].start + timedelta(hours=12)


def hint_from_query(query: str, anchor: datetime) -> TimeHint | None:
    """The instants a question is about, from its own time expressions (relative ones against `anchor`).

    Plain expressions are covered together ("in May or June"); an order word bounds one side ("before
    May 2023", "since last summer", "until the 3rd"); "between X and Y" / "from X to Y" is one range.
    Plain and bounded windows intersect ("in 2023, before May"); an empty intersection gives no hint
    rather than a guess. Beside one day named outright, relative expressions count from that day.
    """
    low = query.casefold()
    found = find(query, anchor)
    if not found:
        return None
    said = _said_on(found)
    if said is not None:  # "last Friday, on 23 January 2022": the Friday before that day
        found = find(query, said)
    windows = [_window(low, f) for f in found]
    plain = [w for w in windows if w[0] != FAR_PAST and w[1] != FAR_FUTURE]
    bounds = [w for w in windows if w[0] == FAR_PAST or w[1] == FAR_FUTURE]
    start, end = FAR_PAST, FAR_FUTURE
    if plain:
        start, end = min(w[0] for w in plain), max(w[1] for w in plain)
    for lo, hi in bounds:
        start, end = max(start, lo), min(end, hi)
    return TimeHint(start=start, end=end) if start < end else None


TimeQuestion = Literal["when", "how_long", "order"]
_HOW_LONG = re.compile(
    # "how long is the commute?" asks a length, not a time: the present "is/are" is left out
    r"\bhow (?:long(?! (?:is|are)\b)|many (?:days|weeks|months|years|hours|minutes)|much time)\b|"
    r"\bfor how long\b"
)
_ORDER_Q = re.compile(
    r"\b(?:before|prior to|earlier than|after|later than|earliest|latest|most recent(?:ly)?|previously|"
    r"in what order|which came|the (?:first|last) time)\b|"
    r"\b(?:did|does|do|has|had|have|was|were)\s+\S+(?:\s+\S+)?\s+(?:first|last)\b"
)
_WHEN = re.compile(
    r"\bwhen\b|\bwhat (?:date|day|year|month|time|week|weekend|season)\b|"
    r"\b(?:which|what) (?:day|date|year|month|week|weekend|season)\b|\bin (?:which|what) (?:year|month)\b"
)


@lru_cache(maxsize=1024)
def time_question(query: str) -> TimeQuestion | None:
    """The kind of time question: "how_long" (a duration: "how long ago", "how many years"), "order"
    (before / after / first / last), "when" (a date); None when it asks nothing about time.

    It says nothing of which days: "how long has she painted?" has no window, so a caller can use the
    marker to prefer memory that carries an event time, without a hint that could be wrong. A question
    that does name a window with an order word ("since last summer") is "order" too. Cached: it
    depends on the text alone.
    """
    low = query.casefold()
    found = find(query, PROBE)
    if _HOW_LONG.search(low):
        return "how_long"
    if any(FAR_PAST in w or FAR_FUTURE in w for w in (_window(low, f) for f in found)):
        return "order"  # "since last summer", "until the 3rd"
    for f in reversed(found):  # "last week" and "the week before last" are times, not order words
        low = low[: f.start] + " " + low[f.end :]
    if _ORDER_Q.search(low):
        return "order"
    if _WHEN.search(low):
        return "when"
    return None


def with_event_range(item: NewItem, now: datetime | None = None) -> NewItem:
    """The item with an event range resolved from its text against its observed_at (else `now`), when it
    has none of its own; unchanged otherwise."""
    meta = item.meta
    if meta.event_from is not None or meta.event_to is not None:
        return item
    found = event_range(item.text, meta.observed_at or now or utcnow())
    if found is None:
        return item
    return replace(item, meta=replace(meta, event_from=found[0], event_to=found[1]))
