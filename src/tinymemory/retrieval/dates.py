"""Time expressions in text resolved against an anchor instant into half-open spans of days.

A memory saying "yesterday" observed on 8 May is about 7 May; a question asking about "last May" is
about that month. Own small resolver (no dependency): explicit dates, month names, years, and the
relative forms people use in chat ("last Saturday", "two weeks ago", "next month"). Spans are whole
days, weeks (Monday first), months or years, in the anchor's time zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
}
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "couple of": 2,
    "two": 2,
    "three": 3,
    "a few": 3,
    "few": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
UNITS = ("day", "week", "month", "year")
MAX_AGO = 1000  # a larger count is not a date people talk about; ignored rather than overflowing

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(WEEKDAYS)
_COUNT = "|".join(sorted((re.escape(k) for k in NUMBERS), key=len, reverse=True)) + r"|\d{1,4}"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(rf"\b{_ORD}(?: of)? ({_MONTH})\b\.?,?(?: (\d{{4}})\b)?")
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.? {_ORD}\b(?:,? (\d{{4}})\b)?")
_MONTH_YEAR = re.compile(rf"\b({_MONTH}),? (\d{{4}})\b")
# a bare month name needs a lead word: "may", "march" and "august" are also ordinary words
_IN_MONTH = re.compile(rf"\b(in|during|since|until|by|last|next|this|early|late|mid|of)[ -]({_MONTH})\b")
_IN_YEAR = re.compile(r"\b(?:in|during|since|of|year) (\d{4})\b")
_SIMPLE = re.compile(
    r"\b(the day before yesterday|yesterday|last night|today|tonight|this morning|tomorrow)\b"
)
_DAY_SHIFT = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1}
_WORD_SHIFT = {"last": -1, "past": -1, "this": 0, "next": 1}
_REL_UNIT = re.compile(r"\b(last|this|next|past) (week|weekend|month|year)\b")
_REL_WEEKDAY = re.compile(rf"\b(last|this|next|past) ({_WEEKDAY})\b")
_AGO = re.compile(rf"\b({_COUNT}) ({'|'.join(UNITS)})s? ago\b")
_ANY = re.compile(
    rf"\d{{4}}|yesterday|today|tonight|tomorrow|last night|this morning|ago\b|\b(?:last|this|next|past) "
    rf"(?:week|weekend|month|year|{_WEEKDAY})|\b(?:{_MONTH})\b"
)


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open [start, end) interval and whether resolving it needed the anchor (relative)."""

    start: datetime
    end: datetime
    relative: bool


def mentions_time(text: str) -> bool:
    """Cheap pre-check: could `text` hold a time expression at all?"""
    return _ANY.search(text.casefold()) is not None


def _day(anchor: datetime, y: int, m: int, d: int) -> datetime | None:
    try:
        return anchor.replace(year=y, month=m, day=d, hour=0, minute=0, second=0, microsecond=0)
    except ValueError:
        return None


def _month_span(anchor: datetime, y: int, m: int, relative: bool) -> Span | None:
    start = _day(anchor, y, m, 1)
    if start is None:
        return None
    end = _day(anchor, y + (m == 12), m % 12 + 1, 1)
    return None if end is None else Span(start, end, relative)


def _year_span(anchor: datetime, y: int, relative: bool) -> Span | None:
    start, end = _day(anchor, y, 1, 1), _day(anchor, y + 1, 1, 1)
    return None if start is None or end is None else Span(start, end, relative)


def _days(start: datetime | None, n: int, relative: bool) -> Span | None:
    if start is None:
        return None
    try:
        return Span(start, start + timedelta(days=n), relative)
    except OverflowError:
        return None


def _shift_month(y: int, m: int, delta: int) -> tuple[int, int]:
    k = y * 12 + (m - 1) + delta
    return k // 12, k % 12 + 1


def _unit_span(anchor: datetime, unit: str, shift: int) -> Span | None:
    """The whole day/week/month/year `shift` units from the anchor's."""
    today = anchor.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        if unit == "day":
            return _days(today + timedelta(days=shift), 1, True)
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
            if unit == "weekend":
                return _days(monday + timedelta(days=5), 2, True)
            return _days(monday, 7, True)
        if unit == "month":
            y, m = _shift_month(anchor.year, anchor.month, shift)
            return _month_span(anchor, y, m, True)
        return _year_span(anchor, anchor.year + shift, True)
    except OverflowError:
        return None


def _weekday_span(anchor: datetime, word: str, weekday: int) -> Span | None:
    today = anchor.replace(hour=0, minute=0, second=0, microsecond=0)
    back = (today.weekday() - weekday) % 7 or 7  # the latest such day strictly before today
    ahead = (weekday - today.weekday()) % 7 or 7
    try:
        if word in ("last", "past"):
            return _days(today - timedelta(days=back), 1, True)
        if word == "next":
            return _days(today + timedelta(days=ahead), 1, True)
        return _days(today + timedelta(days=(weekday - today.weekday())), 1, True)  # this <weekday>
    except OverflowError:
        return None


def _count(word: str) -> int:
    return NUMBERS[word] if word in NUMBERS else int(word)


def resolve(text: str, anchor: datetime) -> list[Span]:
    """Every time expression in `text` as a span, in no particular order; unparseable ones are skipped."""
    low = text.casefold()
    if not mentions_time(low):
        return []
    spans: list[Span | None] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        """Longer, more precise patterns run first; a later match inside their text is skipped."""
        if any(a < m.end() and m.start() < b for a, b in taken):
            return False
        taken.append((m.start(), m.end()))
        return True

    for m in _ISO.finditer(low):
        if free(m):
            spans.append(_days(_day(anchor, int(m[1]), int(m[2]), int(m[3])), 1, False))
    for m in _DAY_MONTH.finditer(low):
        if free(m):
            y = int(m[3]) if m[3] else anchor.year
            spans.append(_days(_day(anchor, y, MONTHS[m[2]], int(m[1])), 1, m[3] is None))
    for m in _MONTH_DAY.finditer(low):
        if m[1] == "may" and m[3] is None:
            continue  # "may 3 people come" is a verb far more often than a date
        if free(m):
            y = int(m[3]) if m[3] else anchor.year
            spans.append(_days(_day(anchor, y, MONTHS[m[1]], int(m[2])), 1, m[3] is None))
    for m in _MONTH_YEAR.finditer(low):
        if free(m):
            spans.append(_month_span(anchor, int(m[2]), MONTHS[m[1]], False))
    for m in _IN_MONTH.finditer(low):
        if free(m):
            month, y = MONTHS[m[2]], anchor.year
            if m[1] == "last" and month >= anchor.month:
                y -= 1  # "last March" said in May is this year's March; said in March, last year's
            elif m[1] == "next" and month <= anchor.month:
                y += 1
            spans.append(_month_span(anchor, y, month, True))
    for m in _IN_YEAR.finditer(low):
        if free(m):
            spans.append(_year_span(anchor, int(m[1]), False))
    for m in _SIMPLE.finditer(low):
        if free(m):
            spans.append(_unit_span(anchor, "day", _DAY_SHIFT.get(m[1], 0)))
    for m in _REL_WEEKDAY.finditer(low):
        if free(m):
            spans.append(_weekday_span(anchor, m[1], WEEKDAYS[m[2]]))
    for m in _REL_UNIT.finditer(low):
        if free(m):
            spans.append(_unit_span(anchor, m[2], _WORD_SHIFT[m[1]]))
    for m in _AGO.finditer(low):
        n = _count(m[1])
        if n > MAX_AGO or not free(m):
            continue
        spans.append(_unit_span(anchor, m[2], -n))
    return [s for s in spans if s is not None]


def covering(spans: list[Span]) -> tuple[datetime, datetime] | None:
    """The smallest [start, end) that covers every span, or None for no span."""
    if not spans:
        return None
    return min(s.start for s in spans), max(s.end for s in spans)


def event_range(text: str, observed_at: datetime) -> tuple[datetime, datetime] | None:
    """A memory's event range as closed [from, to] (to = end - 1 µs), from the dates its text names."""
    cover = covering(resolve(text, observed_at))
    if cover is None:
        return None
    return cover[0], cover[1] - timedelta(microseconds=1)
