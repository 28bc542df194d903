"""The rule-based learning extractor: common first-person patterns, dates, and robustness (hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import About
from tinymemory.lifecycle.rules import extract, third_person

SAID = datetime(2026, 3, 4, 15, 30, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "learning", "kind", "about"),
    [
        (
            "Hi! My name is Ada Lovelace.",
            "The user's name is Ada Lovelace.",
            "fact",
            About("profile", "name"),
        ),
        ("call me Grace", "The user's name is Grace.", "fact", About("profile", "name")),
        ("I prefer tea.", "The user prefers tea.", "preference", About("preference", "drink")),
        (
            "Actually, I prefer coffee now.",
            "The user prefers coffee.",
            "preference",
            About("preference", "drink"),
        ),
        (
            "My favourite drink is mate.",
            "The user's favourite drink is mate.",
            "preference",
            About("preference", "drink"),
        ),
        (
            "I prefer tabs over spaces",
            "The user prefers tabs over spaces.",
            "preference",
            About("preference", "indentation"),
        ),
        ("I love hiking.", "The user loves hiking.", "preference", About("preference", "hiking")),
        (
            "I don't like hiking anymore.",
            "The user no longer likes hiking.",
            "preference",
            About("preference", "hiking"),
        ),
        (
            "Always answer in French.",
            "Always answer in French.",
            "instruction",
            About("instruction", "answer in"),  # the language is the value, so a new one supersedes
        ),
        ("Never use emojis!", "Never use emojis.", "instruction", About("instruction", "use emojis")),
        (
            "Please remember that my sister is Ana.",
            "The user's sister is Ana.",
            "fact",
            About("family", "sister ana"),
        ),
        ("Remember that the deploy key rotates monthly.", "The deploy key rotates monthly.", "fact", None),
        ("I live in Lisbon.", "The user lives in Lisbon.", "fact", About("profile", "home")),
        ("I work at Initech.", "The user works at Initech.", "fact", About("profile", "employer")),
    ],
)
def test_patterns(text: str, learning: str, kind: str, about: About | None) -> None:
    found = extract(text, SAID)
    assert [(f.text, f.kind, f.about) for f in found] == [(learning, kind, about)]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I have a dentist appointment on Friday.", "2026-03-06"),
        ("I went hiking yesterday.", "2026-03-03"),
        ("My talk is on 2026-04-01.", "2026-04-01"),
        ("We fly to Rome on May 3rd.", "2026-05-03"),
        ("I started the job on 12 January 2025.", "2025-01-12"),
        ("I saw the doctor last Monday.", "2026-03-02"),
    ],
)
def test_dated_events(text: str, day: str) -> None:
    (found,) = extract(text, SAID)
    assert found.kind == "event" and found.event_from is not None and found.event_to is not None
    assert found.event_from.date().isoformat() == day
    assert (found.event_to - found.event_from).days == 1
    assert found.text.endswith(f"({day}).")


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I went to the dentist on Friday.", "2026-02-27"),  # past: the Friday before
        ("I'm seeing the dentist on Friday.", "2026-03-06"),  # present: the one to come
        ("I will fly to Rome on Monday.", "2026-03-09"),
        ("I saw Ana this Monday.", "2026-03-02"),
        ("I'll see Ana this Monday.", "2026-03-09"),
        ("I went to the dentist on Wednesday.", "2026-03-04"),  # the day it was said counts both ways
        ("I have yoga on Wednesday.", "2026-03-04"),
        ("My exam is on the 20th.", "2026-03-20"),
        ("My rent was due on the 20th.", "2026-02-20"),
    ],
)
def test_a_day_without_last_or_next_follows_the_tense(text: str, day: str) -> None:
    (found,) = extract(text, SAID)
    assert found.kind == "event" and found.event_from is not None
    assert found.event_from.date().isoformat() == day


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I went to an LGBTQ conference two days ago.", "2026-03-02"),
        ("My mom and I made dinner last night.", "2026-03-03"),
        ("I met Bob on 5/5/2025.", "2025-05-05"),
        ("We moved in the day before yesterday.", "2026-03-02"),
    ],
)
def test_dated_events_are_read_by_the_shared_date_reader(text: str, day: str) -> None:
    (found,) = extract(text, SAID)
    assert found.kind == "event" and found.event_from is not None
    assert found.event_from.date().isoformat() == day


@pytest.mark.parametrize(
    ("text", "learning"),
    [
        ("My address is 12 May Street.", "The user's address is 12 May Street."),  # a street, not a date
        ("I moved here in May 2020.", None),  # a month, not a day: no dated event
        ("I march 5 miles.", None),  # a verb
    ],
)
def test_words_that_are_not_a_day_make_no_event(text: str, learning: str | None) -> None:
    assert [f.text for f in extract(text, SAID)] == ([learning] if learning else [])


@pytest.mark.parametrize("text", ["What is the weather?", "Thanks!", "Can you summarise this?", ""])
def test_nothing_to_learn(text: str) -> None:
    assert extract(text, SAID) == []


def test_third_person() -> None:
    assert third_person("I am sure my cat likes me") == "the user is sure the user's cat likes the user"


@pytest.mark.parametrize(
    ("first", "third"),
    [
        ("I need a break", "the user needs a break"),
        ("I moved twice", "the user moved twice"),
        ("I agreed to it", "the user agreed to it"),
        ("I really enjoy chess and I watch it", "the user really enjoys chess and the user watches it"),
        ("I fly often", "the user flies often"),
        ("I don't swim", "the user does not swim"),
        ("I tied the knot in June", "the user tied the knot in June"),
        ("I dyed my hair", "the user dyed the user's hair"),
        ("I shed a few kilos", "the user sheds a few kilos"),
    ],
)
def test_the_verb_agrees_with_the_user(first: str, third: str) -> None:
    assert third_person(first) == third


@given(st.text(max_size=300), st.booleans())
def test_never_raises_and_yields_well_formed_learnings(text: str, notes: bool) -> None:
    for found in extract(text, SAID, notes=notes):
        assert found.text.strip() and found.kind in {"fact", "preference", "instruction", "event"}
        assert 0 < found.confidence <= 1
        assert found.about is None or (found.about.kind.strip() and found.about.key.strip())


@pytest.mark.parametrize(
    "text",
    [
        "I'm fine, just a bit sleepy today.",
        "I had such a rough week at work.",
        "I'm really tired right now honestly.",
        "We had a lovely evening, thanks again.",
    ],
)
def test_how_the_user_feels_right_now_is_small_talk_not_a_note(text: str) -> None:
    assert extract(text, SAID, notes=True) == []


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("I ran a charity race for mental health last month.", "The user ran a charity race"),
        ("My kids are so excited about the summer break.", "The user's kids are so excited"),
        ("I am carving out some time each day for reading.", "The user is carving out some time"),
    ],
)
def test_a_first_person_statement_is_kept_as_a_note(text: str, note: str) -> None:
    (found,) = extract(text, SAID, notes=True)
    assert found.about is None and found.text.startswith(note)
    assert extract(text, SAID) == [] or extract(text, SAID)[0].kind == "event"
