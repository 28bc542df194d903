"""The date reader's gates: a rule is skipped only where it cannot match, so gating changes no answer."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory.retrieval import date_words as w
from tinymemory.retrieval.dates import _GATES, _RULES, _WORD, PROBE, Gate, _scan

ALWAYS_OPEN = Gate(frozenset(), always=True)
UNGATED = tuple((pattern, handler, ALWAYS_OPEN) for pattern, handler, _ in _RULES)
ANCHORS = (PROBE, datetime(2023, 5, 8, 13, 56, tzinfo=UTC), datetime(2024, 12, 31, 23, 0, tzinfo=UTC))

# Every word the rules are built from, the words around them, and ordinary filler.
VOCABULARY = sorted(
    {
        *w.MONTHS,
        *w.WEEKDAYS,
        *w.UNITS,
        *(f"{u}s" for u in w.UNITS),
        *w.MULTIPLES,
        *(f"{u}s" for u in w.MULTIPLES),
        *w.DECADES,
        *(f"{s}s" for s in w.SEASONS),
        "1980s",
        "90s",
        "'90s",
        "night before last",
        *w.HOLIDAYS,
        "new year’s",
        "valentine’s day",
        "valentines day",
        "new years eve",
        "twenty-first",
        "twenty first",
        *w.ORDINALS,
        *w.NTH,
        *w.SEASONS,
        *w.NUMBERS,
        *w.VAGUE,
        *[
            "last",
            "this",
            "next",
            "past",
            "coming",
            "previous",
            "on",
            "at",
            "over",
            "for",
            "now",
            "i've been",
            "haven't",
            "within",
            "has known",
            "nearly",
            "during",
            "around",
            "in",
            "of",
            "between",
            "the",
            "a",
            "an",
        ],
        *[
            "since",
            "until",
            "till",
            "by",
            "before",
            "after",
            "from",
            "through",
            "prior",
            "to",
            "earlier",
            "than",
            "later",
            "than",
            "and",
            "or",
        ],
        *[
            "ago",
            "now",
            "yesterday",
            "today",
            "tonight",
            "tomorrow",
            "night",
            "morning",
            "afternoon",
            "evening",
            "other",
            "day",
        ],
        *[
            "early",
            "mid",
            "late",
            "beginning",
            "start",
            "middle",
            "end",
            "half",
            "first",
            "second",
            "q1",
            "q2",
            "q3",
            "q4",
            "quarter",
            "week",
        ],
        *[
            "is",
            "was",
            "good",
            "black",
            "every",
            "easter",
            "palm",
            "cyber",
            "we",
            "i",
            "she",
            "went",
            "met",
            "ran",
            "fun",
        ],
        "before last",
        "after next",
        "or two",
        "the other day",
        "from now",
        "this past",
        *(str(n) for n in (1, 3, 8, 12, 21, 31, 2022, 2023, 1999)),
        "3rd",
        "8th",
        "2023-05-08",
        "08/05/2023",
        "5.8.2023",
        ",",
        ".",
        "-",
        "!",
    }
)


def scans(text: str) -> list[object]:
    low = text.casefold()
    return [(_scan(low, anchor), _scan(low, anchor, UNGATED)) for anchor in ANCHORS]


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=9), st.sampled_from([" ", "", "  ", "-", ", "])
)
def test_a_gated_scan_finds_what_every_rule_finds(words: list[str], sep: str) -> None:
    for gated, ungated in scans(sep.join(words)):
        assert gated == ungated


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_gating_changes_nothing_on_arbitrary_text(text: str) -> None:
    for gated, ungated in scans(text):
        assert gated == ungated


def test_every_rule_has_a_gate_that_opens_on_its_own_examples() -> None:
    examples = [
        "2023-05-08",
        "08/05/2023",
        "on christmas eve",
        "the second week of may",
        "the last friday of june",
        "the end of 2022",
        "earlier this month",
        "10-14 june",
        "june 10-14",
        "the 3rd of may",
        "may 3rd",
        "may 2023",
        "on the 21st",
        "the summer before last",
        "last summer",
        "q3 2023",
        "in june",
        "the 1980s",
        "in 2021",
        "the week before last",
        "monday before last",
        "yesterday",
        "the other day",
        "next friday",
        "past two weeks",
        "this past week",
        "last month",
        "three days ago",
        "for two years now",
        "in two weeks",
        "a day or two ago",
        "on saturday",
    ]
    assert len(examples) == len(_RULES)
    for (pattern, _, gate), text in zip(_RULES, examples, strict=True):
        assert pattern.search(text), (pattern.pattern[:40], text)
        low = text.casefold()
        assert gate.opens(frozenset(_WORD.findall(low)), low), text


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=9), st.sampled_from([" ", "", "  ", "-", ", "])
)
def test_the_gates_at_once_open_what_each_gate_opens(words: list[str], sep: str) -> None:
    low = sep.join(words).casefold()
    each = sum(
        1 << i for i, (_, _, gate) in enumerate(_RULES) if gate.opens(frozenset(_WORD.findall(low)), low)
    )
    assert _GATES.open(low) == each


def test_a_number_that_is_no_date_opens_no_rule() -> None:
    for text in ("ticket #1234 is done", "we have 3 kids", "room 12b", "version 2 of the plan"):
        assert _GATES.open(text) == 0, text
