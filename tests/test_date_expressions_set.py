"""The date reader against a labelled set of our own sentences (tests/data/date_expressions.json).

Each case is a sentence and the days each of its time expressions means, labelled by hand: relative,
absolute and spelled-out dates, ranges, offsets from a named date, ordinal weekdays, seasons, decades,
and sentences that name no date at all. The set is written apart from any benchmark's wording, so it
says how the reader does on dates in general rather than on one data set's phrasing.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tinymemory.retrieval.dates import resolve

SET = json.loads((Path(__file__).parent / "data" / "date_expressions.json").read_text())
CASES: list[dict[str, Any]] = SET["cases"]


def labelled(days: str) -> tuple[str, str]:
    """A label ("2025-03-18" or "2025-03-10..2025-03-16", last day included) as a half-open pair."""
    first, _, last = days.partition("..")
    return first, (date.fromisoformat(last or first) + timedelta(days=1)).isoformat()


def read(case: dict[str, Any]) -> list[tuple[str, str]]:
    anchor = datetime.fromisoformat(case.get("anchor", SET["anchor"]))
    return [(s.start.date().isoformat(), s.end.date().isoformat()) for s in resolve(case["text"], anchor)]


@pytest.mark.parametrize("case", CASES, ids=[c["text"] for c in CASES])
def test_each_sentence_reads_as_labelled(case: dict[str, Any]) -> None:
    assert read(case) == [labelled(d) for d in case["days"]]


def test_the_set_is_broad() -> None:
    """Over 200 expressions, every form the reader claims represented, and sentences with no date."""
    expressions = sum(max(1, len(c["days"])) for c in CASES)
    forms = Counter(c["form"] for c in CASES)
    assert expressions >= 200
    assert len(forms) >= 15
    assert forms["not a date"] >= 8
    assert sum(1 for c in CASES if not c["days"]) >= 20
    assert len({c["text"].casefold() for c in CASES}) == len(CASES)  # no sentence twice
