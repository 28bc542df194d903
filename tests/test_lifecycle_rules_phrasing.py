"""More general English the formation rules read: a fronted time phrase before the subject, a time
phrase or a reason after a value, a person described before their name, a relative named inside a
clause, verbs of ending with a gerund, measure words before a drink, tools the user uses, a bare
"I'm <Name>", "home is X", a workplace named by a common noun after a verb that can only mean a job,
and intentions that are not facts yet. The sentences are made up for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from lifecycle_rules_support import SAID, pairs
from tinymemory.api import About
from tinymemory.lifecycle.rules import extract

HOME = About("profile", "home")
EMPLOYER = About("profile", "employer")
NAME = About("profile", "name")
RELATIONSHIP = About("profile", "relationship")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("In 2021 I moved to Ghent.", [("The user lives in Ghent.", HOME)]),
        ("Two years ago we relocated to Perth.", [("The user lives in Perth.", HOME)]),
        ("These days I work at Zalando.", [("The user works at Zalando.", EMPLOYER)]),
        ("Since 2020 I have been working for Oxfam.", [("The user works at Oxfam.", EMPLOYER)]),
        (
            "Nowadays I prefer hot chocolate.",
            [("The user prefers hot chocolate.", About("preference", "drink"))],
        ),
    ],
)
def test_a_fronted_time_phrase_leaves_the_clause_it_dates(text: str, want: list[tuple[str, About]]) -> None:
    assert pairs(text) == want


def test_a_fronted_time_phrase_still_dates_an_event() -> None:
    [event] = extract("Yesterday I ran my first half marathon.", SAID)
    assert event.kind == "event" and event.event_from is not None
    assert event.event_from.date().isoformat() == "2026-03-03"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I switched to PyCharm two weeks ago.", "The user prefers PyCharm."),
        ("I've switched to Sublime a while ago.", "The user prefers Sublime."),
    ],
)
def test_a_time_phrase_ends_the_value_switched_to(text: str, want: str) -> None:
    assert pairs(text) == [(want, About("preference", "editor"))]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I don't enjoy cycling anymore because of the traffic.", "cycling"),
        ("I love swimming since we moved to the coast.", "swimming"),
        ("I'm into pottery since last winter.", "pottery"),
    ],
)
def test_a_reason_or_time_after_the_object_is_not_part_of_the_subject(text: str, key: str) -> None:
    assert [a for _, a in pairs(text)] == [About("preference", key)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I've been seeing a woman named Odile.", "The user is dating Odile."),
        ("I'm engaged to a lovely man called Tobias.", "The user is engaged to Tobias."),
        ("I'm dating someone called Remy.", "The user is dating Remy."),
    ],
)
def test_a_person_described_before_their_name(text: str, want: str) -> None:
    assert pairs(text) == [(want, RELATIONSHIP)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I've been with my fiancé Noor since college.", ("The user's fiancé is Noor.", "fiance")),
        ("I spent the weekend with my nephew Arlo.", ("The user's nephew is Arlo.", "nephew arlo")),
    ],
)
def test_a_relative_named_inside_a_clause(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("family", want[1]))]


def test_a_friends_relative_is_not_the_users() -> None:
    assert pairs("I had lunch with my friend's sister Ana.") == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I gave up eating pork last year.", ("The user does not eat pork.", "avoids pork")),
        ("I've quit drinking caffeine.", ("The user does not drink caffeine.", "avoids caffeine")),
        ("I don't eat meat anymore.", ("The user does not eat meat.", "avoids meat")),
        ("I don't drink alcohol.", ("The user does not drink alcohol.", "avoids alcohol")),
    ],
)
def test_what_the_user_stopped_eating_or_drinking(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("health", want[1]))]


def test_a_stopped_habit_ends_its_subject() -> None:
    assert pairs("I stopped drinking coffee.") == [
        ("The user no longer drinks coffee.", About("preference", "drink"))
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I drink a mug of cocoa every night.", "The user drinks cocoa."),
        ("I drink three cups of tea a day.", "The user drinks tea."),
    ],
)
def test_a_measure_before_a_drink_is_not_the_drink(text: str, want: str) -> None:
    assert pairs(text) == [(want, About("preference", "drink"))]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I mostly use IntelliJ at work.", ("The user uses IntelliJ.", "editor")),
        ("I use dark mode everywhere.", ("The user uses dark mode.", "theme")),
    ],
)
def test_a_tool_the_user_uses_is_a_preference_of_its_category(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("preference", want[1]))]


def test_using_something_without_a_category_is_no_preference() -> None:
    assert pairs("I use a standing desk.") == []


def test_a_bare_name_after_i_am() -> None:
    assert pairs("I'm Keziah, and I live in Leith.") == [
        ("The user's name is Keziah.", NAME),
        ("The user lives in Leith.", HOME),
    ]
    assert ("The user's name is Anouk.", NAME) in pairs("I'm Anouk, I teach piano.")
    assert pairs("I'm Dutch.") == []
    assert pairs("I'm Catholic.") == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Home these days is Tbilisi.", "The user lives in Tbilisi."),
        ("Home for me is Quito.", "The user lives in Quito."),
    ],
)
def test_home_is_a_place(text: str, want: str) -> None:
    assert pairs(text) == [(want, HOME)]


def test_home_is_not_a_description() -> None:
    assert pairs("Home is a tiny flat by the river.") == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I retired from the fire service in 2019.", "The user no longer works at the fire service."),
        ("I resigned from a small law firm.", "The user no longer works at a small law firm."),
    ],
)
def test_a_common_noun_workplace_after_a_verb_that_means_a_job(text: str, want: str) -> None:
    assert pairs(text) == [(want, EMPLOYER)]


def test_quitting_a_habit_is_not_a_job() -> None:
    assert all(a != EMPLOYER for _, a in pairs("I quit the gym."))


@pytest.mark.parametrize(
    "text",
    [
        "I'm training to be a paramedic.",
        "I'm retraining as a welder.",
        "We are going to Lisbon together in August.",
        "I'm hoping to learn the cello this year.",
        "We're planning a party for the spring.",
        "I need to call the bank about my card.",
    ],
)
def test_an_intention_is_no_fact_and_no_note(text: str) -> None:
    assert pairs(text, notes=True) == []


def test_a_possessive_chain_is_someone_elses_fact() -> None:
    assert pairs("My brother's wife works at a bank.", notes=True) == []


def test_a_verb_after_a_two_person_subject_stays_plural() -> None:
    from tinymemory.lifecycle.rules import third_person

    assert third_person("My brother and I are twins") == "the user's brother and the user are twins"
    assert third_person("Jo and I were neighbours") == "Jo and the user were neighbours"
