"""Durations that reach back to the moment they are said: "for three years now", "I've been doing X for
two months". Said on a given day, such a sentence is about the days from that long ago up to that day;
a duration of some other time ("we stayed for two weeks") names no date."""

from __future__ import annotations

from datetime import UTC, datetime

from tinymemory.api import ItemKind, ItemMeta, NewItem
from tinymemory.retrieval.dates import mentions_time, resolve
from tinymemory.retrieval.temporal import with_event_range

SAID = datetime(2024, 3, 20, 9, 30, tzinfo=UTC)  # a Wednesday


def days(text: str, anchor: datetime = SAID) -> list[tuple[str, str]]:
    return [(s.start.date().isoformat(), s.end.date().isoformat()) for s in resolve(text, anchor)]


def test_a_duration_with_now_reaches_back_to_the_day_it_is_said() -> None:
    assert days("We keep bees, for six years now.") == [("2018-03-20", "2024-03-21")]
    assert days("Running every morning, for a month now") == [("2024-02-20", "2024-03-21")]
    assert days("The shop has been shut for 2 weeks now") == [("2024-03-06", "2024-03-21")]


def test_the_present_perfect_reaches_back_too() -> None:
    assert days("I've been learning the cello for three years") == [("2021-03-20", "2024-03-21")]
    assert days("We have lived in this flat for 6 months.") == [("2023-09-20", "2024-03-21")]
    assert days("She has known him for about two years") == [("2022-03-20", "2024-03-21")]
    assert days("it's been raining for two days, ugh") == [("2024-03-18", "2024-03-21")]
    assert days("I haven't seen my cousin for nearly five years") == [("2019-03-20", "2024-03-21")]
    assert days("I’ve owned this bike for over a year") == [("2023-03-20", "2024-03-21")]


def test_a_vague_count_reaches_back_as_far_as_it_may_mean() -> None:
    assert days("I've been off sugar for a few weeks now") == [("2024-02-14", "2024-03-21")]


def test_a_duration_of_another_time_names_no_date() -> None:
    assert days("I went to Norway for two weeks") == []
    assert days("I'll be in Rome for a week") == []
    assert days("We stayed at the cabin for three days") == []
    assert days("I had worked there for five years before I quit") == []
    assert days("I have to stay in bed for two days") == []
    assert days("I have a meeting, it's booked for two days") == []
    # the clause ends before the duration: the perfect belongs to the first one
    assert days("I've been busy. We drove for three days.") == []
    # a future said after the perfect is what the duration belongs to
    assert days("I've booked the cabin, we'll stay there for a week") == []
    assert days("we have decided that we are going to rest for two weeks") == []


def test_a_duration_beside_a_date_keeps_the_date() -> None:
    assert days("We camped for three days last month") == [("2024-02-01", "2024-03-01")]
    assert days("I've had this job for two years, since 2022") == [
        ("2022-03-20", "2024-03-21"),
        ("2022-01-01", "2023-01-01"),
    ]


def test_a_stored_memory_carries_the_range_and_the_text_mentions_time() -> None:
    assert mentions_time("I've had them for 3 years now")
    text = "I've had them for 3 years now"
    item = NewItem(kind=ItemKind.CONVERSATION, text=text, meta=ItemMeta(observed_at=SAID))
    meta = with_event_range(item).meta
    assert meta.event_from == datetime(2021, 3, 20, tzinfo=UTC)
    assert meta.event_to is not None and meta.event_to.date().isoformat() == "2024-03-20"
