"""The time-expression resolver: examples for each form, and properties over arbitrary text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import ItemKind, ItemMeta, NewItem
from tinymemory.retrieval.dates import event_range, mentions_time, resolve
from tinymemory.retrieval.temporal import hint_from_query, with_event_range

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def days(text: str, anchor: datetime = MONDAY) -> list[tuple[str, str]]:
    return sorted((s.start.date().isoformat(), s.end.date().isoformat()) for s in resolve(text, anchor))


def test_relative_days_weeks_and_weekdays() -> None:
    assert days("I went yesterday") == [("2023-05-07", "2023-05-08")]
    assert days("last Saturday was fun") == [("2023-05-06", "2023-05-07")]
    assert days("we met two weeks ago") == [("2023-04-24", "2023-05-01")]
    assert days("3 days ago") == [("2023-05-05", "2023-05-06")]
    assert days("last weekend") == [("2023-05-06", "2023-05-08")]
    assert days("next Friday") == [("2023-05-12", "2023-05-13")]


def test_months_and_years() -> None:
    assert days("in May I ran") == [("2023-05-01", "2023-06-01")]
    assert days("next month") == [("2023-06-01", "2023-07-01")]
    assert days("last may") == [("2022-05-01", "2022-06-01")]
    assert days("last March") == [("2023-03-01", "2023-04-01")]
    assert days("last year") == [("2022-01-01", "2023-01-01")]
    assert days("May 2023") == [("2023-05-01", "2023-06-01")]
    assert days("since 2022") == [("2022-01-01", "2023-01-01")]


def test_explicit_dates_are_absolute() -> None:
    assert days("on 8 May, 2023") == [("2023-05-08", "2023-05-09")]
    assert days("2023-05-01") == [("2023-05-01", "2023-05-02")]
    assert [s.relative for s in resolve("on 8 May, 2023", MONDAY)] == [False]
    assert [s.relative for s in resolve("yesterday", MONDAY)] == [True]


def test_ordinary_words_are_not_dates() -> None:
    assert days("I may go, and march on") == []
    assert days("When did Caroline go to the support group?") == []
    assert days("the 30th of february") == []  # an impossible date is skipped, not raised


def test_event_range_is_closed_and_covers_every_expression() -> None:
    start, end = event_range("yesterday and today", MONDAY) or (None, None)
    assert start == datetime(2023, 5, 7, tzinfo=UTC)
    assert end == datetime(2023, 5, 9, tzinfo=UTC) - timedelta(microseconds=1)
    assert event_range("no time here", MONDAY) is None


def test_a_stored_item_gets_its_event_range_unless_it_has_one() -> None:
    new = NewItem(ItemKind.CONVERSATION, "I went to the group yesterday", meta=ItemMeta(observed_at=MONDAY))
    got = with_event_range(new).meta
    assert (got.event_from, got.event_to) == event_range(new.text, MONDAY)
    own = NewItem(ItemKind.CONVERSATION, "yesterday", meta=ItemMeta(observed_at=MONDAY, event_from=MONDAY))
    assert with_event_range(own) is own


def test_a_question_time_becomes_a_hint() -> None:
    hint = hint_from_query("What did Mel do in June 2023?", MONDAY)
    assert hint is not None and (hint.start, hint.end) == (
        datetime(2023, 6, 1, tzinfo=UTC),
        datetime(2023, 7, 1, tzinfo=UTC),
    )
    assert hint_from_query("What does Mel like?", MONDAY) is None


@given(st.integers(min_value=1, max_value=1000))
def test_n_days_ago_is_that_day(n: int) -> None:
    want = (MONDAY - timedelta(days=n)).date()
    [span] = resolve(f"it happened {n} days ago.", MONDAY)
    assert span.start.date() == want and span.end - span.start == timedelta(days=1)


@given(
    st.integers(min_value=1, max_value=28), st.integers(min_value=1, max_value=12), st.integers(1900, 2100)
)
def test_day_month_year_round_trips(day: int, month: int, year: int) -> None:
    name = datetime(2000, month, 1).strftime("%B")
    [span] = resolve(f"on {day} {name}, {year}", MONDAY)
    assert span.start == datetime(year, month, day, tzinfo=UTC)


@given(st.text(max_size=200), st.datetimes(min_value=datetime(1, 2, 1), max_value=datetime(9998, 11, 30)))
def test_any_text_resolves_to_well_formed_spans(text: str, when: datetime) -> None:
    anchor = when.replace(tzinfo=UTC)
    for span in resolve(text, anchor):
        assert span.start < span.end
    if not mentions_time(text):
        assert resolve(text, anchor) == []
