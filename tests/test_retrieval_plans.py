"""Plans resolve to the days they are about, not the day they are said: "we're moving in two weeks",
"see you tomorrow". A stored plan then matches a question about the days it named."""

from __future__ import annotations

from datetime import UTC, datetime

from tinymemory.api import ItemKind, ItemMeta, NewItem
from tinymemory.api.filters import TimeHint
from tinymemory.retrieval.dates import resolve
from tinymemory.retrieval.temporal import hint_from_query, span_matches, with_event_range

SAID = datetime(2024, 3, 20, 18, 5, tzinfo=UTC)  # a Wednesday


def days(text: str, anchor: datetime = SAID) -> list[tuple[str, str]]:
    return [(s.start.date().isoformat(), s.end.date().isoformat()) for s in resolve(text, anchor)]


def test_in_n_units_ahead_is_that_unit() -> None:
    assert days("The exam is in three days") == [("2024-03-23", "2024-03-24")]
    assert days("I'm flying to Oslo in two weeks!") == [("2024-04-01", "2024-04-08")]
    assert days("we'll probably move in a few months") == [("2024-05-01", "2024-09-01")]
    assert days("Back in a week") == [("2024-03-25", "2024-04-01")]


def test_within_n_units_ahead_is_every_day_up_to_it() -> None:
    assert days("I'll send the draft within two days") == [("2024-03-20", "2024-03-23")]


def test_in_n_units_of_the_past_is_a_duration_not_a_date() -> None:
    assert days("I finished the puzzle in two days") == []
    assert days("We drove across the country in a week") == []


def test_not_in_n_units_in_the_perfect_reaches_back_to_now() -> None:
    assert days("I haven't talked to Lee in a few weeks") == [("2024-02-14", "2024-03-21")]
    assert days("we have not been there in two years") == [("2022-03-20", "2024-03-21")]
    # an "in" of a past clause is how long something took
    assert days("we had it done in two days") == []


def test_a_stored_plan_matches_a_question_about_the_day_it_named() -> None:
    plan = NewItem(
        kind=ItemKind.CONVERSATION,
        text="Great, I'll come round to yours tomorrow with the recipes",
        meta=ItemMeta(observed_at=SAID),
    )
    meta = with_event_range(plan).meta
    assert meta.event_from is not None and meta.event_to is not None
    asked = hint_from_query("What did we cook on 21 March 2024?", SAID)
    assert asked == TimeHint(start=datetime(2024, 3, 21, tzinfo=UTC), end=datetime(2024, 3, 22, tzinfo=UTC))
    assert span_matches(meta.event_from, meta.event_to, asked)
    assert not span_matches(SAID, SAID, asked)  # the day it was said is not the day it is about
