"""Calendar arithmetic for the date reader: whole days, weeks, months, quarters and years as spans.

Kept apart from dates.py so the reader holds only the forms of expressions, and the arithmetic
(clamping a shifted day, Monday-first weeks, picking the nearest instance of a recurring date) can
be read on its own. Every span is half-open, [start, end), in the anchor's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open [start, end) interval and whether resolving it needed the anchor (relative)."""

    start: datetime
    end: datetime
    relative: bool


def midnight(anchor: datetime) -> datetime:
    return anchor.replace(hour=0, minute=0, second=0, microsecond=0)


def day(anchor: datetime, y: int, m: int, d: int) -> datetime | None:
    try:
        return anchor.replace(year=y, month=m, day=d, hour=0, minute=0, second=0, microsecond=0)
    except ValueError:
        return None


def span(start: datetime | None, end: datetime | None, relative: bool) -> Span | None:
    return None if start is None or end is None or start >= end else Span(start, end, relative)


def days(start: datetime | None, n: int, relative: bool) -> Span | None:
    if start is None:
        return None
    try:
        return Span(start, start + timedelta(days=n), relative)
    except OverflowError:
        return None


def shift_month(y: int, m: int, delta: int) -> tuple[int, int]:
    k = y * 12 + (m - 1) + delta
    return k // 12, k % 12 + 1


def months(anchor: datetime, y: int, m: int, n: int, relative: bool) -> Span | None:
    """`n` whole months from the first of month `m` of year `y`."""
    y2, m2 = shift_month(y, m, n)
    return span(day(anchor, y, m, 1), day(anchor, y2, m2, 1), relative)


def month_span(anchor: datetime, y: int, m: int, relative: bool) -> Span | None:
    return months(anchor, y, m, 1, relative)


def year_span(anchor: datetime, y: int, relative: bool) -> Span | None:
    return span(day(anchor, y, 1, 1), day(anchor, y + 1, 1, 1), relative)


def shift_day(base: datetime, unit: str, n: int) -> datetime | None:
    """The calendar day `n` units from `base` (a month or year shift keeps the day, clamped)."""
    try:
        if unit in ("day", "week", "weekend"):
            return base + timedelta(days=n * (1 if unit == "day" else 7))
        moved = n * {"month": 1, "quarter": 3, "year": 12}[unit]
        y, m = shift_month(base.year, base.month, moved)
        for d in range(base.day, 27, -1):
            got = day(base, y, m, d)
            if got is not None:
                return got
        return day(base, y, m, min(base.day, 28))
    except OverflowError:
        return None


def unit_span(anchor: datetime, unit: str, shift: int) -> Span | None:
    """The whole day/week/weekend/month/quarter/year `shift` units from the anchor's."""
    today = midnight(anchor)
    try:
        if unit == "day":
            return days(today + timedelta(days=shift), 1, True)
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
            if unit == "weekend":
                return days(monday + timedelta(days=5), 2, True)
            return days(monday, 7, True)
        if unit == "month":
            y, m = shift_month(anchor.year, anchor.month, shift)
            return month_span(anchor, y, m, True)
        if unit == "quarter":
            y, m = shift_month(anchor.year, (anchor.month - 1) // 3 * 3 + 1, 3 * shift)
            return months(anchor, y, m, 3, True)
        return year_span(anchor, anchor.year + shift, True)
    except OverflowError:
        return None


def units_back(anchor: datetime, unit: str, lo: int, hi: int) -> Span | None:
    """From the unit `hi` back to the unit `lo` back (negative counts look ahead), both whole."""
    first, last = unit_span(anchor, unit, -max(lo, hi)), unit_span(anchor, unit, -min(lo, hi))
    return None if first is None or last is None else span(first.start, last.end, True)


def rolling(anchor: datetime, unit: str, n: int) -> Span | None:
    """The last `n` units up to and including the anchor's day (negative `n`: the next ones)."""
    today = midnight(anchor)
    if n >= 0:
        return span(shift_day(today, unit, -n), shift_day(today, "day", 1), True)
    end = shift_day(today, unit, -n)
    return span(today, None if end is None else shift_day(end, "day", 1), True)


def nearest(candidates: list[Span | None], anchor: datetime, which: str) -> Span | None:
    """Among instances of a recurring date: "last" the latest one over before today, "next" the first
    starting after today, otherwise the one holding today or else the nearest (ties go to the past)."""
    today = midnight(anchor)
    spans = [s for s in candidates if s is not None]
    if which in ("last", "previous", "past", "this past"):
        before = [s for s in spans if s.end <= today]
        return max(before, key=lambda s: s.start, default=None)
    if which in ("next", "coming"):
        after = [s for s in spans if s.start > today]
        return min(after, key=lambda s: s.start, default=None)

    def distance(s: Span) -> timedelta:
        if s.start <= today < s.end:
            return timedelta(0)
        return s.start - today if today < s.start else today - s.end + timedelta(days=1)

    return min(spans, key=lambda s: (distance(s), s.start), default=None)


def thirds(whole: Span | None, part: str) -> Span | None:
    """Early, mid or late part of a month (days 1-10, 11-20, 21-end) or of a year (four months each);
    or its first or second half (days 1-15 and 16-end; January-June and July-December)."""
    if whole is None:
        return None
    a = whole.start
    if part in ("first half", "second half"):
        second = part == "second half"
        if whole.end - whole.start > timedelta(days=31):
            return months(a, a.year, 7 if second else 1, 6, whole.relative)
        mid = a + timedelta(days=15)
        return span(mid, whole.end, whole.relative) if second else span(a, mid, whole.relative)
    third = {"early": 0, "beginning": 0, "start": 0, "mid": 1, "middle": 1, "late": 2, "end": 2}[part]
    if whole.end - whole.start > timedelta(days=31):  # a year
        return months(a, a.year, 1 + 4 * third, 4, whole.relative)
    start = a + timedelta(days=10 * third)
    return span(start, whole.end if third == 2 else start + timedelta(days=10), whole.relative)
