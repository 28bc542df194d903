"""The words the date reader knows: month and weekday names, counts, ordinals, seasons, holidays.

Plain tables kept apart from the patterns that use them, so the vocabulary can be read (and tested)
on its own and the reader in dates.py stays about forms.
"""

from __future__ import annotations

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
_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# Counts in words, one to ninety-nine ("twenty-five", "twenty five"), and the articles and vague counts
# that stand for one.
NUMBERS = {w: i for i, w in enumerate((*_ONES, *_TEENS), start=1)}
NUMBERS |= {w: 10 * i for i, w in enumerate(_TENS, start=2)}
NUMBERS |= {
    f"{t}{sep}{o}": 10 * i + j
    for i, t in enumerate(_TENS, start=2)
    for j, o in enumerate(_ONES, 1)
    for sep in "- "
}
NUMBERS |= {"a": 1, "an": 1, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3}
# Vague counts are ranges of units back (or ahead): "a few days ago" is two to five days ago.
VAGUE = {"a couple of": (1, 3), "couple of": (1, 3), "a few": (2, 5), "few": (2, 5), "several": (3, 7)}
UNITS = ("day", "week", "weekend", "month", "quarter", "year")
# Units named as a multiple of another, read only where a count goes with them ("a fortnight ago", "in
# a fortnight", "two decades ago"): "last decade" could be the 2010s or the ten years up to now.
MULTIPLES = {"fortnight": ("week", 2), "decade": ("year", 10)}
# Decades in words, read after "the": "the nineties" is the latest 90s begun by the anchor's year.
DECADES = {
    "noughties": 0,
    "twenties": 20,
    "thirties": 30,
    "forties": 40,
    "fifties": 50,
    "sixties": 60,
    "seventies": 70,
    "eighties": 80,
    "nineties": 90,
}

_ORDINAL_WORDS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]
ORDINALS = {w: i for i, w in enumerate(_ORDINAL_WORDS, start=1)}
ORDINALS |= {f"twenty-{w}": 20 + i for i, w in enumerate(_ORDINAL_WORDS[:9], start=1)}
ORDINALS |= {f"twenty {w}": 20 + i for i, w in enumerate(_ORDINAL_WORDS[:9], start=1)}
ORDINALS |= {"thirtieth": 30, "thirty-first": 31, "thirty first": 31}

# Meteorological seasons, northern hemisphere: the month each starts in. Winter is named by the year of
# its January and February ("winter 2023" is December 2022 to February 2023).
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
# Holidays on a fixed calendar date only; movable or culture-dependent ones ("the holidays", Easter,
# Thanksgiving) are not resolved.
HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "xmas": (12, 25),
    "new year's eve": (12, 31),
    "new year's day": (1, 1),
    "new year's": (1, 1),
    "halloween": (10, 31),
    "valentine's day": (2, 14),
}
# Lead words of a relative date and how many units they move: "last week", "next month".
SHIFT = {
    "last": -1,
    "previous": -1,
    "past": -1,
    "this past": -1,
    "this": 0,
    "the": 0,
    "next": 1,
    "coming": 1,
}
DAY_SHIFT = {
    "the day before yesterday": -2,
    "the night before last": -2,
    "yesterday": -1,
    "last night": -1,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}
# Ordinal words naming a week of a month or a quarter, counted from zero.
NTH = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}
VERB_MONTHS = ("may", "march")  # also common verbs: a bare "may 3" or "8 march" is not taken as a date
