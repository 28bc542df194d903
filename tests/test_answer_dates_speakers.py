"""The extractive answerer's quotes: a transcript line's own speaker label is not quoted, and a question
asking when gets each memory's date (its event range, else when it was recorded)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tinymemory.api import Hit, ItemKind, ItemMeta, MemoryItem, Source
from tinymemory.retrieval.answer import asks_when, extract, span_label

NOW = datetime(2024, 1, 1, tzinfo=UTC)
DAY = datetime(2023, 1, 19, tzinfo=UTC)


def hit(i: int, text: str, **meta: object) -> Hit:
    item = MemoryItem(f"m{i}", ItemKind.CONVERSATION, text, ItemMeta(**meta), None, valid_from=NOW)  # type: ignore[arg-type]
    return Hit(item, 1.0 - i / 10)


def test_the_speakers_own_label_is_left_out_and_others_are_kept() -> None:
    hits = [
        hit(0, "Gina: I opened my clothing store online!", source=Source("user", "Gina")),
        hit(1, "Note: the clothing store ships abroad.", source=Source("user", "Gina")),
        hit(2, "Jon: Your clothing store looks great.", source=None),
    ]
    ext = extract("What about the clothing store?", hits)
    assert ext.answer == (
        "I opened my clothing store online! Note: the clothing store ships abroad. "
        "Jon: Your clothing store looks great."
    )
    only = [hit(0, "Gina: hello there", source=Source("user", "Gina"))]
    assert extract("quantum chromodynamics", only).answer == "hello there"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Jon lose his job?", True),
        ("when was the deploy?", True),
        ("In what year did she move?", True),
        ("Which month is the festival?", True),
        ("How long ago was the trip?", True),
        ("What did Jon research?", False),
        ("Where did Gina move from?", False),
        ("How long is the commute?", False),
    ],
)
def test_asks_when(question: str, expected: bool) -> None:
    assert asks_when(question) is expected


def test_span_labels() -> None:
    end_of = timedelta(microseconds=1)
    assert span_label(DAY, DAY) == "19 January 2023"
    assert span_label(DAY, DAY + timedelta(days=1) - end_of) == "19 January 2023"
    feb, mar = datetime(2023, 2, 1, tzinfo=UTC), datetime(2023, 3, 1, tzinfo=UTC)
    assert span_label(feb, mar - end_of) == "February 2023"
    dec, jan = datetime(2022, 12, 1, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC)
    assert span_label(dec, jan - end_of) == "December 2022"
    assert span_label(jan, datetime(2024, 1, 1, tzinfo=UTC) - end_of) == "2023"
    week = datetime(2023, 3, 6, tzinfo=UTC)
    assert span_label(week, week + timedelta(days=7) - end_of) == "6-12 March 2023"
    assert span_label(DAY, feb + timedelta(days=2)) == "19 January 2023 to 3 February 2023"


def test_a_when_question_dates_each_memorys_first_quote() -> None:
    lost = hit(
        0,
        "Lost my job as a banker yesterday. The banker job paid well.",
        observed_at=DAY + timedelta(days=1),
        event_from=DAY,
        event_to=DAY + timedelta(days=1) - timedelta(microseconds=1),
    )
    said = hit(1, "My old banker job was dull", observed_at=datetime(2023, 3, 16, 14, tzinfo=UTC))
    undated = hit(2, "A banker job needs patience.")
    ext = extract("When did Jon lose his banker job?", [lost, said, undated])
    assert ext.answer == (
        "19 January 2023: Lost my job as a banker yesterday. The banker job paid well. "
        "16 March 2023: My old banker job was dull. A banker job needs patience."
    )
    plain = extract("Why did Jon lose his banker job?", [lost, said, undated]).answer
    assert "2023" not in plain and plain.startswith("Lost my job as a banker yesterday.")


def test_dates_stay_within_the_budget() -> None:
    hits = [
        hit(i, f"deploy note number {i}", observed_at=datetime(2023, 5, i + 1, tzinfo=UTC)) for i in range(5)
    ]
    for budget in range(3, 160, 4):
        ext = extract("When was the deploy note?", hits, budget=budget)
        assert len(ext.answer) <= budget and ext.answer
