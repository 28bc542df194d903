"""The wider set of time expressions, the order and duration questions, and the words that are not dates.

Every sentence here is our own; the anchor is Thursday 14 November 2024 (its week starts Monday 11th).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import ItemKind, ItemMeta, NewItem, TimeHint
from tinymemory.retrieval.dates import (
    HOLIDAYS,
    MONTHS,
    NUMBERS,
    ORDINALS,
    SEASONS,
    UNITS,
    WEEKDAYS,
    find,
    mentions_time,
    resolve,
)
from tinymemory.retrieval.temporal import (
    FAR_FUTURE,
    FAR_PAST,
    hint_from_query,
    lift,
    names_one_day,
    span_matches,
    time_question,
    with_event_range,
)
from tinymemory.retrieval.tense import leaning

THURSDAY = datetime(2024, 11, 14, 9, 15, tzinfo=UTC)


def days(text: str, anchor: datetime = THURSDAY) -> list[tuple[str, str]]:
    """Each expression as (first day, day after the last), ISO dates."""
    return [(s.start.date().isoformat(), s.end.date().isoformat()) for s in resolve(text, anchor)]


def one(text: str, anchor: datetime = THURSDAY) -> tuple[str, str]:
    [span] = days(text, anchor)
    return span


def window(query: str, anchor: datetime = THURSDAY) -> tuple[str, str] | None:
    """A query's hint as ISO dates, with the far bounds shown as -inf / +inf."""
    hint = hint_from_query(query, anchor)
    if hint is None:
        return None

    def show(t: datetime) -> str:
        return "-inf" if t == FAR_PAST else "+inf" if t == FAR_FUTURE else t.date().isoformat()

    return show(hint.start), show(hint.end)


# --- store side: relative forms ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("we repainted the hallway the week before last", ("2024-10-28", "2024-11-04")),
        ("the month before last was quiet", ("2024-09-01", "2024-10-01")),
        ("two weekends ago we went sailing", ("2024-11-02", "2024-11-04")),
        ("this past weekend the boiler broke", ("2024-11-09", "2024-11-11")),
        ("earlier this month I sold the bike", ("2024-11-01", "2024-11-15")),
        ("later this week the plumber comes", ("2024-11-15", "2024-11-18")),
        ("I saw Ines the other day", ("2024-11-07", "2024-11-14")),
        ("the tiles arrived a couple of days ago", ("2024-11-11", "2024-11-14")),
        ("a day or two ago the cat came back", ("2024-11-12", "2024-11-14")),
        ("we moved a few weeks ago", ("2024-10-07", "2024-11-04")),  # two to five weeks back
        ("several months ago I quit coffee", ("2024-04-01", "2024-09-01")),  # three to seven months back
        ("2 or 3 days ago it snowed", ("2024-11-11", "2024-11-13")),
        ("in the past three weeks I ran twice", ("2024-10-24", "2024-11-15")),
        ("over the past week it rained", ("2024-11-07", "2024-11-15")),
        ("the next few days are busy", ("2024-11-14", "2024-11-20")),
        ("last quarter sales fell", ("2024-07-01", "2024-10-01")),
        ("the parcel comes 3 days from now", ("2024-11-17", "2024-11-18")),
    ],
)
def test_relative_forms_resolve_against_the_anchor(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("on Monday I fixed the gate", ("2024-11-11", "2024-11-12")),
        ("Saturday was the recital", ("2024-11-09", "2024-11-10")),
        ("on Thursday we bake", ("2024-11-14", "2024-11-15")),  # the anchor's own day counts
        ("last Thursday we baked", ("2024-11-07", "2024-11-08")),  # "last" is strictly before
        ("the Friday before last", ("2024-11-01", "2024-11-02")),
        ("the parcel came on the 3rd", ("2024-11-03", "2024-11-04")),
        ("my rent was due on the 20th.", ("2024-10-20", "2024-10-21")),  # the latest 20th so far
        ("on the 3rd of last month", ("2024-10-03", "2024-10-04")),
    ],
)
def test_weekdays_and_days_of_the_month_look_back(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I saw the dentist on Friday", ("2024-11-08", "2024-11-09")),  # past: the Friday before
        ("I'm seeing the dentist on Friday", ("2024-11-15", "2024-11-16")),  # present: the one to come
        ("I have a recital on Saturday", ("2024-11-16", "2024-11-17")),
        ("we will paint the fence on Monday", ("2024-11-18", "2024-11-19")),
        ("Tuesday we're going to plant bulbs", ("2024-11-19", "2024-11-20")),
        ("on Thursday we'll bake", ("2024-11-14", "2024-11-15")),  # ahead counts the anchor's day too
        ("I'm excited about the party on Saturday", ("2024-11-16", "2024-11-17")),  # an adjective in -ed
        ("What did you have for lunch on Tuesday?", ("2024-11-12", "2024-11-13")),  # did, not have
        ("I went hiking, but I'm seeing Ines on Friday", ("2024-11-15", "2024-11-16")),  # its own clause
        ("this Saturday was fun", ("2024-11-09", "2024-11-10")),
        ("I'll call you this Monday", ("2024-11-18", "2024-11-19")),
        ("this Friday", ("2024-11-15", "2024-11-16")),  # no tense: the anchor's week
        ("the plumber comes on Friday", ("2024-11-15", "2024-11-16")),  # a verb of schedules
        ("my exam is on the 3rd", ("2024-12-03", "2024-12-04")),  # a day of the month too
        ("my exam was on the 3rd", ("2024-11-03", "2024-11-04")),
    ],
)
def test_a_day_named_without_last_or_next_follows_the_tense(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


@given(st.text(max_size=200), st.integers(0, 200))
def test_the_tense_of_any_text_is_back_ahead_or_none(text: str, at: int) -> None:
    low = text.casefold()
    assert leaning(low, min(at, len(low))) in ("back", "ahead", None)


def test_a_question_reads_a_weekday_by_its_tense() -> None:
    assert window("What did I cook on Tuesday?") == ("2024-11-12", "2024-11-13")
    assert window("What am I cooking on Tuesday?") == ("2024-11-19", "2024-11-20")
    assert window("What is planned for Friday?") == ("2024-11-15", "2024-11-16")
    assert window("Who called on Monday?") == ("2024-11-11", "2024-11-12")


# --- store side: seasons, parts of a period, quarters, holidays --------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("last summer we camped", ("2024-06-01", "2024-09-01")),  # said in November: this year's
        ("last winter the pipes froze", ("2023-12-01", "2024-03-01")),
        ("this winter I will ski", ("2024-12-01", "2025-03-01")),
        ("next spring we plant tulips", ("2025-03-01", "2025-06-01")),
        ("in the fall the leaves turn", ("2024-09-01", "2024-12-01")),  # the season holding the anchor
        ("in the summer of 2021 I learned to swim", ("2021-06-01", "2021-09-01")),
        ("winter 2022 was mild", ("2021-12-01", "2022-03-01")),  # named by its January
        ("early summer is best", ("2024-06-01", "2024-07-01")),
    ],
)
def test_seasons_are_northern_meteorological(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


def test_last_summer_depends_on_whether_summer_has_ended() -> None:
    in_july = datetime(2024, 7, 20, tzinfo=UTC)
    assert one("last summer", in_july) == ("2023-06-01", "2023-09-01")
    assert one("last summer") == ("2024-06-01", "2024-09-01")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("early May", ("2024-05-01", "2024-05-11")),
        ("in mid-June 2022", ("2022-06-11", "2022-06-21")),
        ("late October", ("2024-10-21", "2024-11-01")),
        ("late last year", ("2023-09-01", "2024-01-01")),
        ("by the end of the month", ("2024-11-21", "2024-12-01")),
        ("at the beginning of next month", ("2024-12-01", "2024-12-11")),
        ("the first half of 2023", ("2023-01-01", "2023-07-01")),
        ("the second week of March", ("2024-03-08", "2024-03-15")),
        ("the last week of February", ("2024-02-23", "2024-03-01")),  # 2024 is a leap year
        ("in Q3 2023", ("2023-07-01", "2023-10-01")),
        ("during Q1", ("2024-01-01", "2024-04-01")),
        ("the fourth quarter of 2022", ("2022-10-01", "2023-01-01")),
        ("on Christmas Eve", ("2024-12-24", "2024-12-25")),  # the nearest one
        ("last Christmas", ("2023-12-25", "2023-12-26")),
        ("on new years eve 2019", ("2019-12-31", "2020-01-01")),
    ],
)
def test_parts_quarters_and_fixed_holidays(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


# --- store side: explicit dates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("May 8th", ("2024-05-08", "2024-05-09")),
        ("on March 3", ("2024-03-03", "2024-03-04")),
        ("my birthday is May 3", ("2024-05-03", "2024-05-04")),  # after a copula "may" is a month
        ("the second of May", ("2024-05-02", "2024-05-03")),
        ("June the 5th, 2021", ("2021-06-05", "2021-06-06")),
        ("2024-02-29", ("2024-02-29", "2024-03-01")),
        ("2023/07/04", ("2023-07-04", "2023-07-05")),
        ("25/12/2023", ("2023-12-25", "2023-12-26")),  # 25 cannot be a month
        ("12/25/2023", ("2023-12-25", "2023-12-26")),
        ("5/5/2023", ("2023-05-05", "2023-05-06")),  # both readings agree
    ],
)
def test_explicit_dates(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


def test_a_date_without_its_year_is_relative() -> None:
    assert [s.relative for s in resolve("May 8th", THURSDAY)] == [True]
    assert [s.relative for s in resolve("June the 5th, 2021", THURSDAY)] == [False]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the day after 4 July 2024", ("2024-07-05", "2024-07-06")),
        ("the week before 1 March 2024", ("2024-02-23", "2024-03-01")),
        ("the Friday before 1 March 2024", ("2024-02-23", "2024-02-24")),  # 1 March 2024 is a Friday
        ("two days after Christmas 2023", ("2023-12-27", "2023-12-28")),
        ("three weeks before 30 June 2024", ("2024-06-09", "2024-06-10")),
        ("the weekend after 6 June 2024", ("2024-06-08", "2024-06-10")),
    ],
)
def test_offsets_from_a_named_date(text: str, want: tuple[str, str]) -> None:
    assert one(text) == want


def test_ranges_are_one_span() -> None:
    assert one("from June to August we rented a flat") == ("2024-06-01", "2024-09-01")
    assert one("between 2019 and 2021 I lived abroad") == ("2019-01-01", "2022-01-01")
    assert one("from November to February") == ("2024-11-01", "2025-03-01")  # runs into next year
    assert one("from March 2023 until May 2023") == ("2023-03-01", "2023-06-01")


def test_listed_months_take_the_first_ones_year() -> None:
    assert days("in May 2022, June and July") == [
        ("2022-05-01", "2022-06-01"),
        ("2022-06-01", "2022-07-01"),
        ("2022-07-01", "2022-08-01"),
    ]
    assert days("in June and may go") == [("2024-06-01", "2024-07-01")]  # "may go" is a verb


# --- words that are not dates -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I may go, and the band will march on",
        "this may help with the noise",
        "may 3 people share a room?",
        "my address is 12 May Street",
        "they march 5 miles a day",
        "wait a second",
        "it stopped a second ago",
        "for the second time she won",
        "my second cat is shy",
        "we live on the 3rd floor",
        "the 21st century",
        "8/5/2023",  # 8 May or August 5: not guessed
        "it cost 2000 dollars",
        "a 10/10 meal",
        "I have 12 cats and 3 dogs",
        "summer camp was fun",
        "after the fall she walked with a stick",
        "we swim on Mondays",
        "we swim every Tuesday",
        "a christmas tree",
        "Q1: list your goals",
        "in the third quarter the team scored",
        "over the holidays",  # which holidays depends on where you are
        "How long ago was it?",
    ],
)
def test_ordinary_words_and_numbers_are_not_dates(text: str) -> None:
    assert resolve(text, THURSDAY) == []


def test_ambiguous_numeric_dates_still_count_as_mentions() -> None:
    assert mentions_time("8/5/2023") and not resolve("8/5/2023", THURSDAY)
    assert not mentions_time("may 3 people share a room?")


# --- anchors -----------------------------------------------------------------------------------------


def test_a_stored_item_resolves_against_its_own_observed_at() -> None:
    earlier = datetime(2023, 2, 1, 18, 0, tzinfo=UTC)  # a Wednesday
    item = NewItem(
        ItemKind.CONVERSATION, "we repainted the week before last", meta=ItemMeta(observed_at=earlier)
    )
    meta = with_event_range(item).meta
    assert meta.event_from == datetime(2023, 1, 16, tzinfo=UTC)
    assert meta.event_to == datetime(2023, 1, 23, tzinfo=UTC) - timedelta(microseconds=1)


def test_spans_stay_in_the_anchor_time_zone() -> None:
    tokyo = timezone(timedelta(hours=9))
    late = datetime(2024, 11, 15, 1, 30, tzinfo=tokyo)  # still the 14th in UTC
    [span] = resolve("on Monday", late)
    assert span.start == datetime(2024, 11, 11, tzinfo=tokyo)
    assert span.start.utcoffset() == timedelta(hours=9)


def test_a_question_is_read_against_the_reach_newest_time() -> None:
    newest = datetime(2022, 3, 9, tzinfo=UTC)  # the newest memory the read sees: a Wednesday
    assert window("what did we buy the week before last?", newest) == ("2022-02-21", "2022-02-28")
    assert window("what did we buy the week before last?") == ("2024-10-28", "2024-11-04")


def test_a_day_named_outright_anchors_the_questions_relative_words() -> None:
    # asked as of that day, not as of the newest memory: the Friday before Sunday 6 October 2024
    assert window("what did Ana finish last Friday, on 6 October 2024?") == ("2024-10-04", "2024-10-07")
    assert window("what did we cook yesterday, on 2 May 2023?") == ("2023-05-01", "2023-05-03")
    # without such a day, or with two, the newest memory's time stands
    assert window("what did Ana finish last Friday?") == ("2024-11-08", "2024-11-09")
    assert window("what happened last week, on 2 May 2023 or 9 May 2023?") == ("2023-05-02", "2024-11-11")


@pytest.mark.parametrize(
    ("query", "one_day"),
    [
        ("What movie did Ana watch on 1 May 2022?", True),
        ("What did we bake on the 3rd of June, 2021?", True),
        ("What did Ana do the Sunday before 25 October 2022?", True),
        ("What did Ana watch yesterday?", False),  # read against the anchor: a guess
        ("What did Ana watch on Friday?", False),
        ("What did Ana watch in May 2022?", False),  # a month, not a day
        ("What did Ana watch on 1 May 2022 and on 3 May 2022?", False),
        ("What did Ana watch?", False),
    ],
)
def test_names_one_day_only_for_one_day_named_outright(query: str, one_day: bool) -> None:
    assert names_one_day(query) is one_day


def test_lift_puts_the_chosen_first_and_keeps_each_groups_order() -> None:
    ranked = [("a", 0.9), ("b", 0.5), ("c", 0.4), ("d", 0.1)]
    lifted = lift(ranked, lambda k: k in {"c", "d"})
    assert [k for k, _ in lifted] == ["c", "d", "a", "b"]
    assert [k for k, _ in sorted(lifted, key=lambda kv: -kv[1])] == ["c", "d", "a", "b"]  # survives a sort
    assert lift([], lambda k: True) == []


# --- questions: order and duration --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "want"),
    [
        ("What did I cook before 3 March 2024?", ("-inf", "2024-03-03")),
        ("Which films did we watch after June 2024?", ("2024-07-01", "+inf")),
        ("What have I read since last summer?", ("2024-06-01", "+inf")),
        ("What had we fixed by the end of October?", ("-inf", "2024-11-01")),
        ("What was due until the 3rd?", ("-inf", "2024-11-04")),
        ("What did we plant prior to 2020?", ("-inf", "2020-01-01")),
        ("Where did we travel between May and July?", ("2024-05-01", "2024-08-01")),
        ("What did we do from 2019 to 2021?", ("2019-01-01", "2022-01-01")),
        ("What did we build in 2024, before May?", ("2024-01-01", "2024-05-01")),
        ("Who visited in June or August?", ("2024-06-01", "2024-09-01")),
        ("What did we eat the day after 4 July 2024?", ("2024-07-05", "2024-07-06")),
    ],
)
def test_order_words_bound_the_window(query: str, want: tuple[str, str]) -> None:
    assert window(query) == want


def test_an_open_end_matches_everything_on_its_side() -> None:
    hint = hint_from_query("what did I cook before 3 March 2024?", THURSDAY)
    assert hint is not None
    long_ago = datetime(1999, 1, 1, tzinfo=UTC)
    assert span_matches(long_ago, long_ago, hint)
    assert not span_matches(datetime(2024, 3, 3, tzinfo=UTC), datetime(2024, 3, 4, tzinfo=UTC), hint)


def test_a_contradiction_gives_no_hint() -> None:
    assert window("What happened in 2022 after 2023?") is None


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("How long ago did we adopt the dog?", "how_long"),
        ("How long has Priya played the cello?", "how_long"),
        ("How many years ago did Tom retire?", "how_long"),
        ("For how long did the power stay off?", "how_long"),
        ("When did Priya first play in public?", "order"),
        ("When did we last repaint the kitchen?", "order"),
        ("When was the last time the boiler broke?", "order"),
        ("Was the move before or after the wedding?", "order"),
        ("Which came first, the flood or the fire?", "order"),
        ("When did Tom sell his boat?", "when"),
        ("What year did we get the piano?", "when"),
        ("In which month was the party?", "when"),
    ],
)
def test_time_questions_that_name_no_range_get_no_hint(query: str, kind: str) -> None:
    assert time_question(query) == kind
    assert hint_from_query(query, THURSDAY) is None


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("What has Priya read since last summer?", "order"),
        ("When did Tom go fishing last week?", "when"),  # "last week" is a time, not "last" in order
        ("What did we buy the week before last?", None),
        ("What is her first name?", None),
        ("Since Tom likes boats, what should we get him?", None),
        ("How old is the dog?", None),
    ],
)
def test_time_question_reads_time_words_in_context(query: str, kind: str | None) -> None:
    assert time_question(query) == kind


# --- properties ---------------------------------------------------------------------------------------

WORDS = sorted(
    {*MONTHS, *WEEKDAYS, *NUMBERS, *ORDINALS, *SEASONS, *HOLIDAYS, *UNITS, *(u + "s" for u in UNITS)}
    | set(
        [
            "the",
            "of",
            "on",
            "in",
            "last",
            "next",
            "this",
            "past",
            "before",
            "after",
            "since",
            "until",
            "by",
            "between",
            "from",
            "to",
            "and",
            "ago",
            "early",
            "mid",
            "late",
            "end",
            "beginning",
            "half",
            "q1",
            "q4",
            "quarter",
            "3rd",
            "31st",
            "29th",
            "12",
            "2023",
            "9999",
            "0001",
            "1000",
            "-",
            ",",
            ".",
            "8/5/2023",
            "25/12/9999",
            "9999-12-31",
            "0001-01-01",
            "yesterday",
            "tomorrow",
            "today",
            "other",
            "day",
            "earlier",
            "later",
            "how",
            "long",
            "when",
            "first",
        ]
    )
)
ANCHORS = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC))


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), ANCHORS)
def test_any_phrase_resolves_to_well_formed_spans(words: list[str], anchor: datetime) -> None:
    text = " ".join(words)
    found = find(text, anchor)
    for f in found:
        assert f.span.start < f.span.end
        assert 0 <= f.start < f.end <= len(text.casefold())
    if found:
        assert mentions_time(text)  # the pre-check never misses what the resolver reads
    hint = hint_from_query(text, anchor)
    assert hint is None or hint.start < hint.end
    assert time_question(text) in ("when", "how_long", "order", None)


@given(st.integers(1, 12), st.integers(1, 28), st.integers(1900, 2100))
def test_numeric_dates_are_read_only_when_unambiguous(month: int, day: int, year: int) -> None:
    got = resolve(f"{day}/{month}/{year}", THURSDAY)
    if day > 12 or day == month:
        assert [s.start for s in got] == [datetime(year, month, day, tzinfo=UTC)]
    else:
        assert got == []


def test_hint_bounds_are_a_time_hint() -> None:
    hint = hint_from_query("since 2020", THURSDAY)
    assert hint == TimeHint(datetime(2020, 1, 1, tzinfo=UTC), FAR_FUTURE)
