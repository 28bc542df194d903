"""Time expressions in text resolved against an anchor instant into half-open spans of days.

A memory saying "yesterday" observed on 8 May is about 7 May; a question asking about "last May" is
about that month. Own small resolver (no dependency): explicit dates, month names, seasons, quarters,
years, fixed-date holidays, and the relative forms people use in chat ("last Saturday", "two weeks
ago", "the week before last", "earlier this month"). Spans are whole days, weeks (Monday first),
months, seasons (northern hemisphere) or years, in the anchor's time zone. Words that are also
ordinary English ("may", "march", "fall", "second") count only where the context makes them a date;
numeric dates count only when their reading is unambiguous; a day named without last/next ("on
Friday", "the 3rd") is read by the tense of its clause (tense.py). The forms and their conventions are
listed in docs/architecture/retrieval.md ("Temporal expressions"). The words it knows are in
date_words and the calendar arithmetic in calendar_spans; the names other modules use are re-exported
here. It is the project's one date reader: the rule-based learning extractor reads dates through it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from tinymemory.retrieval import calendar_spans as cal
from tinymemory.retrieval.calendar_spans import Span
from tinymemory.retrieval.date_words import (
    DAY_SHIFT,
    DECADES,
    HOLIDAYS,
    MONTHS,
    MULTIPLES,
    NTH,
    NUMBERS,
    ORDINALS,
    SEASONS,
    SHIFT,
    UNITS,
    VAGUE,
    VERB_MONTHS,
    WEEKDAYS,
)
from tinymemory.retrieval.tense import leaning, perfect

__all__ = [
    "HOLIDAYS",
    "MAX_AGO",
    "MONTHS",
    "NOT_DATE",
    "NUMBERS",
    "ORDINALS",
    "PROBE",
    "SEASONS",
    "UNITS",
    "VAGUE",
    "WEEKDAYS",
    "Answer",
    "Found",
    "Rule",
    "Span",
    "covering",
    "event_range",
    "find",
    "mentions_time",
    "resolve",
]

MAX_AGO = 1000  # a larger count is not a date people talk about; ignored rather than overflowing


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_MONTH = _alt(MONTHS)
_WEEKDAY = _alt(WEEKDAYS)
_COUNT = _alt([*NUMBERS, *VAGUE]) + r"|\d{1,4}"
_ORDW = _alt(ORDINALS)
_UNIT = _alt(UNITS)
_COUNTED_UNIT = _alt((*UNITS, *MULTIPLES))  # a unit that goes with a count: "a fortnight ago"
_HOLIDAY = _alt(HOLIDAYS).replace("'", "['’]?")
_ORDER_LEADS = "since|until|till|by|before|after|from|through|prior to|earlier than|later than"
_DATE_LEAD = re.compile(rf"\b(?:on|{_ORDER_LEADS}) $")
# "is May 3" is a date (a copula is no modal's subject); "is 12 May Street" may be an address.
_COPULA = re.compile(r"\b(?:is|was|are|were|be) $")
# between the two days of a range in one month: "10-14", "3rd to the 9th", "1 and 5"
_DAY_TO = r"(?:\s*[-–]\s*|\s+(?:to|until|till|through|and)\s+(?:the\s+)?)"
_AFTER_BARE_DAY = (
    r"(?=\s*$|\s*[^\w\s]|\s+(?:and|or|but|at|in|for|when|so|then|we|i|you|he|she|they|it|this|that|"
    r"to|until|through)\b)"
)


def _month_ref(p: str) -> str:
    """A month: "this/last/next/the month" or a month name with an optional year (groups prefixed `p`)."""
    return (
        rf"(?:(?P<{p}rel>this|last|next|the) month|(?P<{p}mon>{_MONTH})\b(?:,? (?:of )?(?P<{p}yr>\d{{4}}))?)"
    )


def _year_ref(p: str) -> str:
    return rf"(?:(?P<{p}rel>this|last|next|the) year|(?P<{p}yr>\d{{4}}))"


def _day_ord(p: str) -> str:
    """A day of the month: 8, 8th, or an ordinal word (groups prefixed `p`)."""
    return rf"(?:(?P<{p}n>\d{{1,2}})(?P<{p}sfx>st|nd|rd|th)?|(?P<{p}w>{_ORDW}))"


# The cheap gate: every pattern below needs one of these.
_ANY = re.compile(
    rf"\d|\b(?:{_MONTH}|{_WEEKDAY}|{_ORDW}|yesterday|today|tonight|tomorrow|night|morning|afternoon|"
    rf"evening|ago|now|day|week|weekend|month|quarter|year|spring|summer|autumn|fall|winter|christmas|xmas|"
    rf"new year|halloween|valentine|other day|fortnight|decade|{_alt(DECADES)})"
)


@dataclass(frozen=True, slots=True)
class Found:
    """One expression: where it sits in the casefolded text, [start, end), and what it resolves to."""

    start: int
    end: int
    span: Span
    joined: bool = False  # a "from X to Y" / "between X and Y" range


class _NotDate:
    """A handler's answer for a match that is ordinary words, not a date: its text stays free."""


NOT_DATE = _NotDate()
Answer = Span | None | _NotDate
# A fixed instant (a leap year, far from either end of the calendar) for questions about the text alone:
# which expressions it holds and where, whatever they resolve to.
PROBE = datetime(2000, 6, 15, 12, tzinfo=UTC)


# --- readers for matched groups -----------------------------------------------------------------------


def _count(word: str) -> int:
    return NUMBERS[word] if word in NUMBERS else int(word)


def _counts(word: str) -> tuple[int, int]:
    if word in VAGUE:
        return VAGUE[word]
    n = _count(word)
    return n, n


def _scaled(unit: str, lo: int, hi: int) -> tuple[str, int, int]:
    """A counted unit as one the calendar knows: "two decades" is twenty years."""
    base, factor = MULTIPLES.get(unit, (unit, 1))
    return base, lo * factor, hi * factor


def _ordinal(m: re.Match[str], p: str) -> int:
    return int(m[p + "n"]) if m[p + "n"] else ORDINALS[m[p + "w"]]


def _lead_before(m: re.Match[str], lead: re.Pattern[str] = _DATE_LEAD) -> bool:
    return lead.search(m.string, max(0, m.start() - 16), m.start()) is not None


def _month_of(m: re.Match[str], p: str, anchor: datetime) -> tuple[int, int, bool]:
    """(year, month, relative) of a `_month_ref` match."""
    if m[p + "rel"]:
        y, mo = cal.shift_month(anchor.year, anchor.month, SHIFT[m[p + "rel"]])
        return y, mo, True
    year = m[p + "yr"]
    return (int(year) if year else anchor.year), MONTHS[m[p + "mon"]], year is None


def _year_of(m: re.Match[str], p: str, anchor: datetime) -> Span | None:
    if m[p + "rel"]:
        return cal.unit_span(anchor, "year", SHIFT[m[p + "rel"]])
    return cal.year_span(anchor, int(m[p + "yr"]), False)


def _season(anchor: datetime, name: str, label: int, relative: bool) -> Span | None:
    first = SEASONS[name]
    y = label - 1 if first == 12 else label
    return cal.months(anchor, y, first, 3, relative)


# --- the forms, most specific first -------------------------------------------------------------------


def _iso(m: re.Match[str], a: datetime) -> Answer:
    return cal.days(cal.day(a, int(m[1]), int(m[3]), int(m[4])), 1, False)


def _numeric(m: re.Match[str], a: datetime) -> Answer:
    """d/m/yyyy or m/d/yyyy: only when one reading is impossible (or both agree); else no date."""
    x, y, year = int(m[1]), int(m[3]), int(m[4])
    if x > 12 >= y:
        day, month = x, y
    elif y > 12 >= x or x == y:
        day, month = y, x
    else:
        return None  # "8/5/2023" is 8 May or August 5: the expression is taken and read as nothing
    return cal.days(cal.day(a, year, month, day), 1, False)


def _holiday(m: re.Match[str], a: datetime) -> Answer:
    if not m["hl"] and not m["hy"]:
        return NOT_DATE  # "a christmas tree" is not about a day
    month, day = HOLIDAYS[_holiday_key(m["h"])]
    if m["hy"]:
        return cal.days(cal.day(a, int(m["hy"]), month, day), 1, False)
    return cal.nearest(
        [cal.days(cal.day(a, a.year + k, month, day), 1, True) for k in (-1, 0, 1)], a, m["hl"] or ""
    )


def _holiday_key(name: str) -> str:
    """A holiday name as HOLIDAYS spells it, however its apostrophe was typed (or left out)."""
    bare = name.replace("’", "").replace("'", "")
    return next(key for key in HOLIDAYS if key.replace("'", "") == bare)


def _week_of(m: re.Match[str], a: datetime) -> Answer:
    y, mo, rel = _month_of(m, "w", a)
    month = cal.month_span(a, y, mo, rel)
    if month is None:
        return None
    if m["nth"] == "last":
        return cal.span(month.end - timedelta(days=7), month.end, rel)
    return cal.days(month.start + timedelta(days=7 * NTH[m["nth"]]), 7, rel)


def _weekday_of(m: re.Match[str], a: datetime) -> Answer:
    """The first..fourth or last such weekday of a month: "the last Friday of June" is one day."""
    y, mo, rel = _month_of(m, "k", a)
    month = cal.month_span(a, y, mo, rel)
    if month is None:
        return None
    weekday = WEEKDAYS[m["kd"]]
    if m["nth"] == "last":
        last = month.end - timedelta(days=1)
        return cal.days(last - timedelta(days=(last.weekday() - weekday) % 7), 1, rel)
    first = month.start + timedelta(days=(weekday - month.start.weekday()) % 7)
    return cal.days(first + timedelta(days=7 * NTH[m["nth"]]), 1, rel)


def _part(m: re.Match[str], a: datetime) -> Answer:
    part = m["part"].removeprefix("the ").removesuffix(" of")
    if m["mrel"] or m["mmon"]:
        y, mo, rel = _month_of(m, "m", a)
        return cal.thirds(cal.month_span(a, y, mo, rel), part)
    return cal.thirds(_year_of(m, "y", a), part)


def _earlier_later(m: re.Match[str], a: datetime) -> Answer:
    """Part of the current unit: "earlier this month" up to the anchor's day, "later this week" after it."""
    whole = cal.unit_span(a, m[2], 0)
    if whole is None:
        return None
    today = cal.midnight(a)
    if m[1] == "earlier":
        return cal.span(whole.start, cal.shift_day(today, "day", 1), True)
    return cal.span(cal.shift_day(today, "day", 1), whole.end, True) or cal.days(today, 1, True)


def _day_month(m: re.Match[str], a: datetime) -> Answer:
    if m["dw"] and not m["of"]:
        return NOT_DATE  # "the first may" is not a date; "the first of May" is
    month = m["mon"]
    if month in VERB_MONTHS and not (m["yr"] or m["dsfx"] or m["of"] or _lead_before(m)):
        return NOT_DATE
    y = int(m["yr"]) if m["yr"] else a.year
    return cal.days(cal.day(a, y, MONTHS[month], _ordinal(m, "d")), 1, m["yr"] is None)


def _month_day(m: re.Match[str], a: datetime) -> Answer:
    month = m["mon"]
    if month in VERB_MONTHS and not (m["yr"] or m["dsfx"] or _lead_before(m) or _lead_before(m, _COPULA)):
        return NOT_DATE  # "may 3 people come" is a verb far more often than a date
    y = int(m["yr"]) if m["yr"] else a.year
    return cal.days(cal.day(a, y, MONTHS[month], _ordinal(m, "d")), 1, m["yr"] is None)


def _month_year(m: re.Match[str], a: datetime) -> Answer:
    return cal.month_span(a, int(m[2]), MONTHS[m[1]], False)


def _season_form(m: re.Match[str], a: datetime) -> Answer:
    lead, name = m["sl"], m["s"]
    if not (lead or m["sp"] or m["sy"]):
        return NOT_DATE  # "summer camp", "spring water": a season word alone is not a time
    if name == "fall" and m["the"] and lead not in ("in", "during", "over"):
        return NOT_DATE  # "after the fall" is usually an accident, not autumn
    if m["sy"]:
        span = _season(a, name, int(m["sy"]), False)
    else:
        near = [_season(a, name, a.year + k, True) for k in (-2, -1, 0, 1, 2)]
        span = cal.nearest(near, a, lead or "")
    if span is not None and m["sp"]:  # early / mid / late: the season's first, second or third month
        y, mo = cal.shift_month(span.start.year, span.start.month, {"early": 0, "mid": 1, "late": 2}[m["sp"]])
        span = cal.months(a, y, mo, 1, span.relative)
    return span


def _season_back(m: re.Match[str], a: datetime) -> Answer:
    """ "The summer before last" and "two summers ago" are summers before the latest one over ("last
    summer"); "the summer after next" the one after the next to begin."""
    name = m["s"] or m["sn"]
    near = [_season(a, name, a.year + k, True) for k in (-2, -1, 0, 1, 2)]
    if m["n"]:
        back = _count(m["n"])
        if not 1 <= back <= MAX_AGO:
            return NOT_DATE
        which, shift = "last", 1 - back
    else:
        which, shift = ("last", -1) if m["way"] == "before last" else ("next", 1)
    base = cal.nearest(near, a, which)
    if base is None:
        return None
    y, mo = cal.shift_month(base.start.year, base.start.month, 12 * shift)
    return cal.months(a, y, mo, 3, True)


def _decade(m: re.Match[str], a: datetime) -> Answer:
    """ "The 1980s" is 1980-1989; "the 90s" and "the nineties" the latest such decade begun by the
    anchor's year (said in 2025, "the 20s" are the 2020s, "the 30s" the 1930s). "The 1900s" is left
    unread: the century as often as the decade."""
    if m["full"]:
        start = int(m["full"]) * 10
        if start % 100 == 0:
            return None  # "the 1900s" is as often the century as its first decade: taken, read as nothing
        return cal.span(cal.day(a, start, 1, 1), cal.day(a, start + 10, 1, 1), False)
    tens = int(m["short"]) * 10 if m["short"] else DECADES[m["word"]]
    start = a.year // 100 * 100 + tens
    if start > a.year:
        start -= 100
    return cal.span(cal.day(a, start, 1, 1), cal.day(a, start + 10, 1, 1), True)


def _day_range(m: re.Match[str], a: datetime) -> Answer:
    """Days of one month given as a range: "10-14 June", "June 10-14, 2023", "from the 3rd to the 9th of
    July". A bare "may" or "march" needs a year, a suffix, "of" or a lead word to be a month here too."""
    month = m["mon"]
    led = m["lead"] is not None or _lead_before(m)
    if month in VERB_MONTHS and not (m["yr"] or m["bsfx"] or m["of"] or led):
        return NOT_DATE
    first, last = int(m["a"]), int(m["b"])
    if not 1 <= first < last <= 31:
        return NOT_DATE
    y = int(m["yr"]) if m["yr"] else a.year
    start, end = cal.day(a, y, MONTHS[month], first), cal.day(a, y, MONTHS[month], last)
    return cal.span(start, None if end is None else end + timedelta(days=1), m["yr"] is None)


def _quarter(m: re.Match[str], a: datetime) -> Answer:
    if not m["qy"] and not (m["qn"] and m["ql"]):
        return NOT_DATE  # "Q1:" heads a list; "the third quarter" of a game
    n = int(m["qn"]) if m["qn"] else NTH[m["qw"]] + 1
    year = int(m["qy"]) if m["qy"] else a.year
    return cal.months(a, year, 3 * n - 2, 3, m["qy"] is None)


def _in_month(m: re.Match[str], a: datetime) -> Answer:
    lead, month = m[1], MONTHS[m[2]]
    if m[2] == "may" and lead == "this":
        return NOT_DATE  # "this may help"
    y = a.year
    if lead == "last" and month >= a.month:
        y -= 1  # "last March" said in May is this year's March; said in March, last year's
    elif lead == "next" and month <= a.month:
        y += 1
    return cal.month_span(a, y, month, True)


def _in_year(m: re.Match[str], a: datetime) -> Answer:
    return cal.year_span(a, int(m[1]), False)


def _before_last(m: re.Match[str], a: datetime) -> Answer:
    shift = -2 if m[2] == "before last" else 2
    return cal.unit_span(a, m[1], shift)


def _weekday_before_last(m: re.Match[str], a: datetime) -> Answer:
    last = _weekday_span(a, "before", WEEKDAYS[m[1]])
    return None if last is None else cal.days(last.start - timedelta(days=7), 1, True)


def _simple(m: re.Match[str], a: datetime) -> Answer:
    return cal.unit_span(a, "day", DAY_SHIFT.get(m[1], 0))


def _other_day(m: re.Match[str], a: datetime) -> Answer:
    """Some day of the past week, not today ("the other day")."""
    today = cal.midnight(a)
    return cal.span(cal.shift_day(today, "day", -7), today, True)


def _weekday_span(anchor: datetime, way: str, weekday: int) -> Span | None:
    """That weekday, looked for `way` from the anchor's day: "before" / "after" strictly, "back" / "ahead"
    counting the anchor's own day, "week" in the anchor's (Monday-first) week."""
    today = cal.midnight(anchor)
    steps = {
        "before": -((today.weekday() - weekday) % 7 or 7),
        "after": (weekday - today.weekday()) % 7 or 7,
        "back": -((today.weekday() - weekday) % 7),
        "ahead": (weekday - today.weekday()) % 7,
        "week": weekday - today.weekday(),
    }
    try:
        return cal.days(today + timedelta(days=steps[way]), 1, True)
    except OverflowError:
        return None


_WAY = {"last": "before", "past": "before", "this past": "before", "next": "after", "coming": "after"}


def _rel_weekday(m: re.Match[str], a: datetime) -> Answer:
    """`last/next Friday` strictly before / after the anchor's day; `this Friday` by the clause's tense
    (tense.py), else the one in the anchor's week."""
    way = _WAY.get(m[1]) or leaning(m.string, m.start(2)) or "week"
    return _weekday_span(a, way, WEEKDAYS[m[2]])


def _past_n(m: re.Match[str], a: datetime) -> Answer:
    """A rolling window ending (or starting) today: "the past three weeks", "the next few days"; a vague
    count takes its upper end."""
    unit, _, n = _scaled(m[3], *_counts(m[2]))
    if n > MAX_AGO:
        return NOT_DATE
    return cal.rolling(a, unit, -n if m[1] in ("next", "coming") else n)


def _lasting(m: re.Match[str], a: datetime) -> Answer:
    """A duration up to the moment it is said ("for three years now", "I've been painting for two
    months"): the days from that long ago to today; a vague count reaches as far back as it may mean.
    A duration of some other time ("we stayed for two weeks") names no date."""
    if not m["now"] and not perfect(m.string, m.start()):
        return NOT_DATE
    unit, _, n = _scaled(m[2], *_counts(m[1]))
    if n > MAX_AGO:
        return NOT_DATE
    return cal.rolling(a, unit, n)


def _in_units(m: re.Match[str], a: datetime) -> Answer:
    """A plan's "in N units" ("the exam is in three days", "we'll move in a few months") is that unit
    ahead, as "N units from now"; "within N units" every day up to it. A negative present perfect ("I
    haven't seen her in two years") reaches back to now, as "for N units" does; "in N units" of the
    past ("I finished it in two days") is how long something took, no date."""
    unit, lo, hi = _scaled(m[3], *_counts(m[2]))
    if hi > MAX_AGO:
        return NOT_DATE
    if m[1] == "in" and perfect(m.string, m.start(), negated=True):
        return cal.rolling(a, unit, hi)
    if leaning(m.string, m.start()) == "back":
        return NOT_DATE
    if m[1] == "within":
        return cal.rolling(a, unit, -hi)
    return cal.units_back(a, unit, -lo, -hi)


def _past_unit(m: re.Match[str], a: datetime) -> Answer:
    """One unit back up to today: "the past week" (unlike "last week", the calendar week before)."""
    return cal.rolling(a, m[1], 1)


def _rel_unit(m: re.Match[str], a: datetime) -> Answer:
    return cal.unit_span(a, m[2], SHIFT[m[1]])


def _ago(m: re.Match[str], a: datetime) -> Answer:
    lo, hi = _counts(m[1])
    if m[2]:
        lo, hi = min(lo, *_counts(m[2])), max(hi, *_counts(m[2]))
    unit, lo, hi = _scaled(m[3], lo, hi)
    if hi > MAX_AGO:
        return NOT_DATE
    sign = 1 if m[4] == "ago" else -1
    return cal.units_back(a, unit, sign * lo, sign * hi)


def _day_or_two(m: re.Match[str], a: datetime) -> Answer:
    sign = 1 if m[2] == "ago" else -1
    return cal.units_back(a, m[1], sign, 2 * sign)


def _nth_day(m: re.Match[str], a: datetime) -> Answer:
    """A day of the month alone ("on the 3rd"), read by the tense of its clause like a bare weekday: the
    first such day on or after the anchor's for a plan or the future, else the latest on or before it;
    or that day of this / last / next month when one is named."""
    day = _ordinal(m, "n")
    if m["nrel"]:
        y, mo = cal.shift_month(a.year, a.month, SHIFT[m["nrel"]])
        return cal.days(cal.day(a, y, mo, day), 1, True)
    today = cal.midnight(a)
    ahead = leaning(m.string, m.start()) == "ahead"
    for k in (0, 1, 2) if ahead else (0, -1, -2):  # a 31st may need two months
        y, mo = cal.shift_month(a.year, a.month, k)
        start = cal.day(a, y, mo, day)
        if start is not None and (start >= today if ahead else start <= today):
            return cal.days(start, 1, True)
    return None


def _bare_weekday(m: re.Match[str], a: datetime) -> Answer:
    """A weekday alone ("on Monday", "Saturday was fun", "I'm seeing Ana on Friday"), read by the tense
    of its clause (tense.py): the first such day on or after the anchor's for a plan or the future, else
    (the past, or no tense said: memory mostly reports the past) the latest on or before it."""
    return _weekday_span(a, leaning(m.string, m.start(1)) or "back", WEEKDAYS[m[1]])


_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class Gate:
    """Whole words, and forms with a digit, of which a rule's every match holds at least one: a rule
    whose gate finds none of them in a text cannot match there, so it is not run. The rules are most of
    a store's cost otherwise (measured: half of a 1,000-item `store_many` on chat text). A digit alone
    opens no rule: "#12" or "3 kids" hold none of the forms a numeric date needs. `always`: open on
    every text (tests run the rules ungated so)."""

    words: frozenset[str]
    forms: tuple[re.Pattern[str], ...] = ()
    always: bool = False

    def opens(self, words: frozenset[str], low: str) -> bool:
        """The reference for `Gates.open`, which decides for every rule at once."""
        if self.always or not self.words.isdisjoint(words):
            return True
        return any(f.search(low) for f in self.forms)


def _gate(*words: str, forms: tuple[re.Pattern[str], ...] = ()) -> Gate:
    return Gate(frozenset(words), forms)


class Gates:
    """Every rule's gate at once: each word (and digit form) mapped to the rules it opens, as the bits
    of one int, so a text costs a lookup per distinct word it holds rather than a test per rule."""

    def __init__(self, gates: Iterable[Gate]) -> None:
        self._by_word: dict[str, int] = {}
        self._by_form: dict[re.Pattern[str], int] = {}
        self._always = 0
        for i, gate in enumerate(gates):
            bit = 1 << i
            if gate.always:
                self._always |= bit
            for word in gate.words:
                self._by_word[word] = self._by_word.get(word, 0) | bit
            for form in gate.forms:
                self._by_form[form] = self._by_form.get(form, 0) | bit
        self._vocabulary = frozenset(self._by_word)

    def open(self, low: str) -> int:
        """The rules (bit i: rule i) whose gates open on casefolded `low`."""
        opened = self._always
        for word in self._vocabulary.intersection(_WORD.findall(low)):
            opened |= self._by_word[word]
        if _DIGIT.search(low) is not None:
            for form, rules in self._by_form.items():
                if rules & ~opened and form.search(low) is not None:
                    opened |= rules
        return opened


def _first_words(words: Iterable[str]) -> tuple[str, ...]:
    """Each vocabulary entry's first word, as `_WORD` splits it ("twenty-first" -> "twenty")."""
    return tuple(_WORD.findall(w)[0] for w in words)


class _G:
    """The rules' gates (see `Gate`), each a necessary condition read off its patterns: the patterns put
    word boundaries around these words, so each is a whole word of `_WORD`. tests/test_dates_gates.py
    checks that a gated scan finds exactly what an ungated one finds."""

    # the digit forms: a numeric date's separator, a year of four digits after a space or a dash (every
    # rule reading a year as digits puts one before it), a day's ordinal suffix
    SEPARATED = re.compile(r"\d[-/.]\d")
    YEAR = re.compile(r"[ -]\d{4}")
    NTH = re.compile(r"\d(?:st|nd|rd|th)")
    DECADE_DIGITS = re.compile(r"\d0['’]?s")  # "1980s", "the 90s", "the '90s"
    NUMERIC = _gate(forms=(SEPARATED,))
    IN_YEAR = _gate(forms=(YEAR,))
    MONTH = _gate(*MONTHS)
    WEEKDAY = _gate(*WEEKDAYS)
    # "days ago", "past two weeks": the plural too
    UNIT = _gate(*UNITS, *MULTIPLES, *(f"{u}s" for u in (*UNITS, *MULTIPLES)))
    SEASON = _gate(*SEASONS, *(f"{s}s" for s in SEASONS))
    DECADE = _gate(*DECADES, forms=(DECADE_DIGITS,))
    # "valentine's day" / "valentines day", "new year's eve"
    HOLIDAY = _gate(*_first_words(HOLIDAYS), *(f"{w}s" for w in _first_words(HOLIDAYS)))
    # a month or a year: a name, "this/last/next/the month", "... year" or four digits
    PART = _gate(*MONTHS, "month", "year", forms=(YEAR,))
    # "the 3rd" or "the third"
    NTH_DAY = _gate(*_first_words(ORDINALS), forms=(NTH,))
    QUARTER = _gate("quarter", "q1", "q2", "q3", "q4")
    WEEK_OF = _gate("week")
    EARLIER = _gate("earlier", "later")
    BEFORE_LAST = _gate("before", "after")
    SIMPLE = _gate("yesterday", "night", "today", "tonight", "morning", "afternoon", "evening", "tomorrow")
    OTHER_DAY = _gate("other")
    AGO = _gate("ago", "now")
    OR_TWO = _gate("two")


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], Answer], Gate]
_RULES: tuple[Rule, ...] = tuple(
    (re.compile(pattern), handler, gate)
    for pattern, handler, gate in (
        (r"\b(\d{4})([-/])(\d{1,2})\2(\d{1,2})\b", _iso, _G.NUMERIC),
        (r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b", _numeric, _G.NUMERIC),
        (
            rf"\b(?:(?P<hl>last|this|next|on|at|over|for|during|around|between|{_ORDER_LEADS}) )?"
            rf"(?P<h>{_HOLIDAY})\b(?:,? (?P<hy>\d{{4}})\b)?",
            _holiday,
            _G.HOLIDAY,
        ),
        (rf"\b(?:the )?(?P<nth>last|{_alt(NTH)}) week of {_month_ref('w')}", _week_of, _G.WEEK_OF),
        (
            rf"\b(?:the )?(?P<nth>last|{_alt(NTH)}) (?P<kd>{_WEEKDAY}) of {_month_ref('k')}",
            _weekday_of,
            _G.WEEKDAY,
        ),
        (
            r"\b(?P<part>early|mid|late|(?:the )?(?:beginning|start|middle|end|(?:first|second) half) of)"
            r"[ -]"
            rf"(?:{_month_ref('m')}|{_year_ref('y')}\b)",
            _part,
            _G.PART,
        ),
        (r"\b(earlier|later) (?:this|in the) (week|month|quarter|year)\b", _earlier_later, _G.EARLIER),
        (
            rf"\b(?:(?P<lead>from|between) (?:the )?)?(?P<a>\d{{1,2}})(?:st|nd|rd|th)?{_DAY_TO}"
            rf"(?P<b>\d{{1,2}})(?P<bsfx>st|nd|rd|th)?(?P<of> of)? (?P<mon>{_MONTH})\b\.?,?"
            rf"(?: (?P<yr>\d{{4}})\b)?",
            _day_range,
            _G.MONTH,
        ),
        (
            rf"\b(?:(?P<lead>from|between) )?(?P<mon>{_MONTH})\.? (?P<a>\d{{1,2}})(?:st|nd|rd|th)?{_DAY_TO}"
            rf"(?P<b>\d{{1,2}})(?P<bsfx>st|nd|rd|th)?\b(?!\.?\d| (?:of )?(?:{_MONTH})\b)(?P<of>)"
            rf"(?:,? (?P<yr>\d{{4}})\b)?",
            _day_range,
            _G.MONTH,
        ),
        (
            rf"\b{_day_ord('d')}(?P<of> of)? (?P<mon>{_MONTH})\b\.?,?(?: (?P<yr>\d{{4}})\b)?",
            _day_month,
            _G.MONTH,
        ),
        (
            rf"\b(?P<mon>{_MONTH})\.? (?:the )?{_day_ord('d')}\b(?:,? (?P<yr>\d{{4}})\b)?",
            _month_day,
            _G.MONTH,
        ),
        (rf"\b({_MONTH}),? (?:of )?(\d{{4}})\b", _month_year, _G.MONTH),
        (
            rf"\b(?:on|{_ORDER_LEADS}) the (?:(?P<nn>\d{{1,2}})(?:st|nd|rd|th)|(?P<nw>{_ORDW}))"
            rf"(?: of (?P<nrel>this|last|next) month\b|{_AFTER_BARE_DAY})",
            _nth_day,
            _G.NTH_DAY,
        ),
        (
            r"\b(?:the (?P<s>spring|summer|autumn|fall|winter) (?P<way>before last|after next)|"
            r"(?P<n>" + _COUNT + r") (?P<sn>spring|summer|autumn|winter)s ago)\b",
            _season_back,
            _G.SEASON,
        ),
        (
            rf"\b(?:(?P<sl>this past|last|this|next|past|in|during|over|{_ORDER_LEADS})[ -](?P<the>the )?)?"
            rf"(?:(?P<sp>early|mid|late)[ -])?(?P<s>spring|summer|autumn|fall|winter)\b"
            rf"(?:,? (?:of )?(?P<sy>\d{{4}})\b)?",
            _season_form,
            _G.SEASON,
        ),
        (
            rf"\b(?:(?P<ql>in|during|for|{_ORDER_LEADS}) (?:the )?)?"
            rf"(?:q(?P<qn>[1-4])|(?P<qw>{_alt(NTH)}) quarter)\b"
            r"(?: of)?(?:,? (?P<qy>\d{4})\b)?",
            _quarter,
            _G.QUARTER,
        ),
        (rf"\b(in|during|last|next|this|of|between|{_ORDER_LEADS})[ -]({_MONTH})\b", _in_month, _G.MONTH),
        (
            rf"\b(?:the )?(?P<full>1\d{{2}}|20\d)0['’]?s\b|\bthe ['’]?(?P<short>\d)0['’]?s\b|"
            rf"\bthe (?P<word>{_alt(DECADES)})\b",
            _decade,
            _G.DECADE,
        ),
        (rf"\b(?:in|during|of|year|between|{_ORDER_LEADS}) (\d{{4}})\b", _in_year, _G.IN_YEAR),
        (
            r"\bthe (day|week|weekend|month|quarter|year) (before last|after next)\b",
            _before_last,
            _G.BEFORE_LAST,
        ),
        (rf"\b(?:the )?({_WEEKDAY}) before last\b", _weekday_before_last, _G.WEEKDAY),
        (
            r"\b(the day before yesterday|the day after tomorrow|the night before last|yesterday|last night|"
            r"today|tonight|this morning|this afternoon|this evening|tomorrow)\b",
            _simple,
            _G.SIMPLE,
        ),
        (r"\bthe other day\b", _other_day, _G.OTHER_DAY),
        (rf"\b(this past|last|this|next|past|coming) ({_WEEKDAY})\b", _rel_weekday, _G.WEEKDAY),
        (rf"\b(past|last|previous|next|coming) ({_COUNT}) ({_COUNTED_UNIT})s\b", _past_n, _G.UNIT),
        (r"\b(?:this past|past) (day|week|month|quarter|year)\b", _past_unit, _G.UNIT),
        (rf"\b(this past|past|last|this|next|previous|coming) ({_UNIT})\b", _rel_unit, _G.UNIT),
        (rf"\b({_COUNT})(?:(?: or |-| to )({_COUNT}))? ({_COUNTED_UNIT})s? (ago|from now)\b", _ago, _G.AGO),
        (
            rf"\bfor (?:(?:about|around|almost|nearly|over|more than|roughly|close to|at least) )?"
            rf"({_COUNT}) ({_COUNTED_UNIT})s?(?P<now> now)?\b",
            _lasting,
            _G.UNIT,
        ),
        (rf"\b(in|within) ({_COUNT}) ({_COUNTED_UNIT})s?\b", _in_units, _G.UNIT),
        (rf"\b(?:a|an|one) ({_UNIT}) or two (ago|from now)\b", _day_or_two, _G.OR_TWO),
        (
            rf"(?<!good )(?<!black )(?<!cyber )(?<!easter )(?<!palm )(?<!every )\b({_WEEKDAY})(?!s\b)\b",
            _bare_weekday,
            _G.WEEKDAY,
        ),
    )
)
_GATES = Gates(gate for _, _, gate in _RULES)


# --- offsets from a named date: "the week before X", "two days after X", "the Sunday before X" -------

_OFFSET = re.compile(
    rf"\b(?:the )?(?:(?P<n>{_COUNT}) )?(?P<unit>{_UNIT}|{_WEEKDAY})s? (?:(?P<dir>before|after) )?$"
)
_OWN_LEAD = re.compile(r"(before|after) ")


def _offsets(low: str, found: list[Found]) -> list[Found]:
    """An expression preceded by an offset ("the day before", "two weeks after") moves by it; an
    expression inside the offset's own words ("last weekend before April 10") gives way to it."""
    out = list(found)
    for f in found:
        m = _OFFSET.search(low, max(0, f.start - 40), f.start)
        own = _OWN_LEAD.match(low, f.start)  # "after christmas" is one expression, lead included
        direction = m["dir"] if m is not None and m["dir"] else own[1] if own and m is not None else None
        if m is None or direction is None or f not in out:
            continue
        try:
            span = _offset(f.span, m["unit"], m["n"], direction == "before")
        except OverflowError:
            span = None
        if span is None:
            continue
        out = [g for g in out if g is not f and not (m.start() < g.end and g.start < m.end())]
        out.append(Found(m.start(), f.end, span))
    return sorted(out, key=lambda g: g.start)


def _offset(x: Span, unit: str, count: str | None, before: bool) -> Span | None:
    if unit in WEEKDAYS:  # the latest such day before x, or the first after it
        if count is not None:
            return None
        day = x.start - timedelta(days=1) if before else x.end
        step = -1 if before else 1
        while day.weekday() != WEEKDAYS[unit]:
            day += timedelta(days=step)
        return cal.days(day, 1, x.relative)
    if count is None:  # the whole unit just before or just after x
        if unit == "weekend":
            sat = x.start - timedelta(days=(x.start.weekday() - 5) % 7 or 7) if before else None
            if sat is None:
                sat = x.end + timedelta(days=(5 - x.end.weekday()) % 7)
            elif sat + timedelta(days=2) > x.start:
                sat -= timedelta(days=7)
            return cal.days(sat, 2, x.relative)
        if before:
            return cal.span(cal.shift_day(x.start, unit, -1), x.start, x.relative)
        return cal.span(x.end, cal.shift_day(x.end, unit, 1), x.relative)
    lo, hi = _counts(count)
    if hi > MAX_AGO:
        return None
    # counted from x's first day back, or from its last day on: "two days after May 3" is May 5
    base = x.start if before else x.end - timedelta(days=1)
    near, far = (-lo, -hi) if before else (lo, hi)
    first, last = sorted((cal.shift_day(base, unit, near) or base, cal.shift_day(base, unit, far) or base))
    if first == base or last == base:
        return None
    return cal.days(first, (last - first).days + 1, x.relative)


# --- joining "from X to Y" / "between X and Y" ------------------------------------------------------

_RANGE_HEAD = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$")
_RANGE_JOIN = re.compile(r"\s*(?:and|to|until|till|through|thru|-|–)\s+(?:the\s+)?|\s*[-–]\s*")
_BARE_END = re.compile(
    rf"(?P<mon>{_MONTH})\.? (?P<md>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (?P<myr>\d{{4}})\b)?|"
    rf"(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?(?: of)? (?P<dmon>{_MONTH})\b\.?(?:,? (?P<dyr>\d{{4}})\b)?|"
    rf"(?P<y>\d{{4}})\b|(?P<bmon>{_MONTH})\b(?:,? (?P<yr>\d{{4}})\b)?|(?P<h>{_HOLIDAY})\b"
)
# a first end named by its month (or day and month) alone, with no year and no "last" / "next"
_MONTH_WORD = re.compile(rf"\b(?:{_MONTH})\b")
_NOT_YEARLESS = re.compile(r"\d{4}|\b(?:last|next|this|past|coming|previous|ago)\b")


def _join_ranges(low: str, found: list[Found], anchor: datetime) -> list[Found]:
    """Ranges ("from May to July", "between 2019 and 2021"): the two ends become one span covering both."""
    out: list[Found] = []
    i = 0
    while i < len(found):
        f = found[i]
        head = _RANGE_HEAD.search(low, max(0, f.start - 16), f.start)
        starts_range = head is not None or low.startswith(("from ", "between "), f.start)
        join = _RANGE_JOIN.match(low, f.end) if starts_range else None
        end: Found | None = None
        if join is not None:
            nxt = found[i + 1] if i + 1 < len(found) else None
            if nxt is not None and f.end <= nxt.start <= join.end():  # "until july" brings its own lead
                end, i = nxt, i + 1
            else:
                end = _bare_end(low, join.end(), f.span, anchor)
        if end is None:
            out.append(f)
        else:
            first = _in_year_of(low, f, end.span)
            s = cal.span(min(first.start, end.span.start), max(first.end, end.span.end), first.relative)
            if s is not None:
                out.append(Found(head.start() if head else f.start, end.end, s, joined=True))
        i += 1
    return out


_LIST_JOIN = re.compile(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+")
_BARE_MONTH = re.compile(rf"({_MONTH})\b(?:,? (\d{{4}})\b)?")
_CLAUSE_END = re.compile(r"\s*(?:$|[^\w\s])")


def _listed_months(low: str, found: list[Found], anchor: datetime) -> list[Found]:
    """Month names listed after a month ("in June or August", "in May 2022, June and July") are months
    too, of the first one's year unless they name their own."""
    out = list(found)
    queue = [f for f in found if f.span.start.day == 1 and 28 <= (f.span.end - f.span.start).days <= 31]
    while queue:
        f = queue.pop(0)
        join = _LIST_JOIN.match(low, f.end)
        m = None if join is None else _BARE_MONTH.match(low, join.end())
        if m is None or any(g.start <= m.start() < g.end for g in out):
            continue
        if m[1] in VERB_MONTHS and not m[2] and not _CLAUSE_END.match(low, m.end()):
            continue  # "in June and may go" ends in a verb
        year = int(m[2]) if m[2] else f.span.start.year
        span = cal.month_span(anchor, year, MONTHS[m[1]], f.span.relative and not m[2])
        if span is not None:
            queue.append(Found(m.start(), m.end(), span))
            out.append(queue[-1])
    return sorted(out, key=lambda g: g.start)


def _bare_end(low: str, at: int, first: Span, anchor: datetime) -> Found | None:
    """The far end of a range with no lead word of its own: a year, a month, a day of a month ("from
    March 3 to March 7": a bare "march 7" is not read alone) or a fixed-date holiday. Without a year
    it is the first such day or month on or after the range's start."""
    m = _BARE_END.match(low, at)
    if m is None:
        return None
    if m["y"]:
        span = cal.year_span(anchor, int(m["y"]), False)
    elif m["bmon"]:
        month = MONTHS[m["bmon"]]
        y = int(m["yr"]) if m["yr"] else first.start.year + (month < first.start.month)
        span = cal.month_span(anchor, y, month, m["yr"] is None)
    else:
        if m["h"]:
            (month, day), year = HOLIDAYS[_holiday_key(m["h"])], None
        elif m["mon"]:
            month, day, year = MONTHS[m["mon"]], int(m["md"]), m["myr"]
        else:
            month, day, year = MONTHS[m["dmon"]], int(m["dd"]), m["dyr"]
        y = int(year) if year else first.start.year
        start = cal.day(anchor, y, month, day)
        if start is not None and year is None and start < first.start:
            start = cal.day(anchor, y + 1, month, day)
        span = cal.days(start, 1, year is None)
    return None if span is None else Found(m.start(), m.end(), span)


def _in_year_of(low: str, f: Found, end: Span) -> Span:
    """A range's first end named without a year ("from January to March 2023") in the year of an end
    that names one: the latest such days starting no later than the end does."""
    text = low[f.start : f.end]
    if end.relative or not f.span.relative or not _MONTH_WORD.search(text) or _NOT_YEARLESS.search(text):
        return f.span
    shift = end.start.year - f.span.start.year
    if (moved := cal.shift_day(f.span.start, "year", shift)) is not None and moved > end.start:
        shift -= 1
    start, stop = cal.shift_day(f.span.start, "year", shift), cal.shift_day(f.span.end, "year", shift)
    return cal.span(start, stop, False) or f.span


# --- public -----------------------------------------------------------------------------------------


def _scan(low: str, anchor: datetime, rules: tuple[Rule, ...] = _RULES) -> tuple[list[Found], bool]:
    """The expressions of casefolded text, and whether any form matched at all (even one that resolves
    to nothing against this anchor). Which forms match depends on the text alone. A rule runs only where
    its gate opens (tests hand in `rules` with every gate open to check that gating changes nothing)."""
    # a digit already opens `_ANY`, whose alternation is slow to try at every position of a long text
    if _DIGIT.search(low) is None and _ANY.search(low) is None:
        return [], False
    opened = (_GATES if rules is _RULES else Gates(g for _, _, g in rules)).open(low)
    found: list[Found] = []
    taken: list[tuple[int, int]] = []
    for i, (pattern, handler, _) in enumerate(rules):
        if not opened >> i & 1:
            continue
        for m in pattern.finditer(low):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # longer, more precise forms ran first; a later match inside their text is skipped
            try:
                answer = handler(m, anchor)
            except OverflowError:
                answer = None
            if isinstance(answer, _NotDate):
                continue
            taken.append((m.start(), m.end()))
            if answer is not None:
                found.append(Found(m.start(), m.end(), answer, joined=handler is _day_range))
    if not found:
        return [], bool(taken)
    joined = _join_ranges(low, _offsets(low, sorted(found, key=lambda f: f.start)), anchor)
    return _listed_months(low, joined, anchor), bool(taken)


def find(text: str, anchor: datetime) -> list[Found]:
    """Every time expression in `text`, in text order; positions index `text.casefold()`."""
    return _scan(text.casefold(), anchor)[0]


def resolve(text: str, anchor: datetime) -> list[Span]:
    """Every time expression in `text` as a span, in text order; unparseable ones are skipped."""
    return [f.span for f in find(text, anchor)]


@lru_cache(maxsize=1024)
def mentions_time(text: str) -> bool:
    """Does `text` hold a time expression the resolver reads? It depends on the text alone (never on
    the data, so a read's plan stays the same from page to page), and is false only when `resolve`
    finds nothing against any anchor. Cached: agents ask the same question again within a turn."""
    return _scan(text.casefold(), PROBE)[1]


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
