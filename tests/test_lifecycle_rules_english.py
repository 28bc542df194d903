"""General English the formation rules read: perfect and progressive tenses of the same verbs, noun
phrases kept whole (a determiner before a name, an of-phrase in a role), additive particles ("as well",
"too", "either") after a value, a name listed before a place, and a name the thread already bound to a
pet or a relative. The sentences are made up for these tests, not taken from the labelled set."""

from __future__ import annotations

import pytest

from lifecycle_rules_support import SAID, pairs
from tinymemory.api import About
from tinymemory.lifecycle.rules import extract

HOME = About("profile", "home")
EMPLOYER = About("profile", "employer")
ROLE = About("profile", "role")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I've been living in Utrecht for three years.", ("The user lives in Utrecht.", HOME)),
        ("We have been living in Bergen since 2019.", ("The user lives in Bergen.", HOME)),
        ("I've lived in Tallinn for a decade.", ("The user lives in Tallinn.", HOME)),
        ("I have been working at Siemens for two years.", ("The user works at Siemens.", EMPLOYER)),
        ("I've worked for Oxfam since 2021.", ("The user works at Oxfam.", EMPLOYER)),
        ("I've been working as a welder for ages.", ("The user works as a welder.", ROLE)),
        ("I've been a paramedic for nine years.", ("The user works as a paramedic.", ROLE)),
    ],
)
def test_perfect_and_progressive_tenses_read_as_the_present(text: str, want: tuple[str, About]) -> None:
    assert pairs(text) == [want]


@pytest.mark.parametrize(
    "text",
    [
        "I had been living in Oslo before the war.",  # past perfect: not where the user lives now
        "I was living in Quito back then.",
        "I've lived in Paris, Rome and Tokyo.",  # experience, no duration: not a current home
    ],
)
def test_past_and_experiential_forms_are_no_home(text: str) -> None:
    assert all(a != HOME for _, a in pairs(text))


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I'm employed by the Met Office.", [("The user works at the Met Office.", EMPLOYER)]),
        ("I joined the Royal Navy.", [("The user works at the Royal Navy.", EMPLOYER)]),
        ("I resigned from the NHS last week.", [("The user no longer works at the NHS.", EMPLOYER)]),
        ("We moved to the Netherlands in March.", [("The user lives in the Netherlands.", HOME)]),
        ("I relocated to the Bay Area.", [("The user lives in the Bay Area.", HOME)]),
    ],
)
def test_a_name_after_the_is_still_a_name(text: str, want: list[tuple[str, About]]) -> None:
    assert pairs(text) == want


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I was promoted to head of sales!", "head of sales"),
        ("I became director of engineering.", "director of engineering"),
        ("I work as a professor of linguistics.", "professor of linguistics"),
        ("I'm now a teacher at a primary school.", "teacher"),
        ("I'm a nurse at a small clinic.", "nurse"),
    ],
)
def test_a_role_keeps_its_of_phrase_and_drops_its_workplace(text: str, role: str) -> None:
    found = [t for t, a in pairs(text) if a == ROLE]
    assert found == [f"The user works as a {role}."]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I'm lactose intolerant as well.", ("The user is intolerant to lactose.", "intolerance lactose")),
        ("I'm diabetic too.", ("The user is diabetic.", "condition diabetes")),
        ("I'm also soy intolerant, unfortunately.", ("The user is intolerant to soy.", "intolerance soy")),
        ("I'm allergic to latex as well.", ("The user is allergic to latex.", "allergy latex")),
    ],
)
def test_additive_particles_and_comments_after_a_value(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("health", want[1]))]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I have a nephew named Tomás in Seville.", [("The user's nephew is Tomás.", "nephew tomás")]),
        (
            "I have two aunts, Ines and Carla, from Porto.",
            [("The user's aunt is Ines.", "aunt ines"), ("The user's aunt is Carla.", "aunt carla")],
        ),
    ],
)
def test_a_place_after_a_name_is_not_another_name(text: str, want: list[tuple[str, str]]) -> None:
    assert pairs(text) == [(t, About("family", k)) for t, k in want]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I rescued a greyhound named Bolt.", ("The user has a greyhound named Bolt.", "bolt")),
        ("We adopted a beagle called Pip.", ("The user has a beagle named Pip.", "pip")),
    ],
)
def test_an_adopted_creature_with_a_name_is_a_pet(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("pet", want[1]))]


def test_a_friend_named_is_not_a_pet() -> None:
    assert all(a is None or a.kind != "pet" for _, a in pairs("I have a friend named Bolt."))


def test_a_name_the_thread_bound_before_needs_no_possessive() -> None:
    known = {"pickle": About("pet", "pickle"), "ruth": About("family", "grandmother")}
    said = [(f.text, f.about) for f in extract("Pickle died last night.", SAID, known=known)]
    assert said == [("Pickle died.", About("pet", "pickle"))]
    said = [(f.text, f.about) for f in extract("Sadly Ruth passed away.", SAID, known=known)]
    assert said == [("Ruth died.", About("family", "grandmother"))]
    # an unknown name is someone else's fact
    assert extract("Bruno died last night.", SAID, known=known) == []
    assert extract("Pickle died last night.", SAID) == []
