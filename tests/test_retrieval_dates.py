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


def test_a_weekday_of_a_month_is_that_one_day() -> None:
    """The last Friday of June is one day, not the month and a nearby Friday (the README's snippet)."""
    december = datetime(2026, 12, 2, 9, tzinfo=UTC)  # after June: the day is past
    january = datetime(2026, 1, 15, 9, tzinfo=UTC)  # before June: the day is ahead
    for anchor in (december, january):
        assert days("The quarterly report is due on the last Friday of June", anchor) == [
            ("2026-06-26", "2026-06-27")
        ]
        assert days("the first Friday of June", anchor) == [("2026-06-05", "2026-06-06")]
        assert days("on the second friday of june", anchor) == [("2026-06-12", "2026-06-13")]
        assert days("the 3rd Monday of June", anchor) == [("2026-06-15", "2026-06-16")]
    # with a year, that year's, and absolute
    assert days("the last Friday of June 2024", december) == [("2024-06-28", "2024-06-29")]
    assert days("the first Monday of March, 2027", december) == [("2027-03-01", "2027-03-02")]
    assert days("the second Friday of March 2024", december) == [("2024-03-08", "2024-03-09")]
    assert [s.relative for s in resolve("the last Friday of June 2024", december)] == [False]
    assert [s.relative for s in resolve("the last Friday of June", december)] == [True]
    # of this / next / last month
    assert days("the last friday of the month", december) == [("2026-12-25", "2026-12-26")]
    assert days("the first tuesday of next month", december) == [("2027-01-05", "2027-01-06")]
    assert days("the last sunday of last month", december) == [("2026-11-29", "2026-11-30")]
    # a fourth Friday that exists, and "last" when the month ends on that weekday
    assert days("the fourth Friday of February 2026", december) == [("2026-02-27", "2026-02-28")]
    assert days("the last Tuesday of June 2026", december) == [("2026-06-30", "2026-07-01")]
    # the relative weekday alone is unchanged
    assert days("last Friday", december) == [("2026-11-27", "2026-11-28")]
