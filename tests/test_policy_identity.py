"""Identity and tiers: where a remember lands and what a read sees, computed from the identity alone."""

from __future__ import annotations

import pytest

from tinymemory.api import InvalidRequest, Namespace
from tinymemory.policy import Identity, Tier


def ns(text: str) -> Namespace:
    return Namespace.parse(text)


def test_tiers_are_the_four_namespaces() -> None:
    tiers = Identity("acme", "dana", "helper", verified=True).tiers
    assert tiers.institutional == ns("workspace:acme")
    assert tiers.agent == ns("workspace:acme/agent:helper")
    assert tiers.user == ns("workspace:acme/user:dana")
    assert tiers.user_for_agent == ns("workspace:acme/user:dana/agent:helper")


def test_remember_lands_in_user_for_agent_when_an_agent_is_named_else_in_user() -> None:
    with_agent = Identity("acme", "dana", "helper", verified=True).tiers
    assert with_agent.write_tier is Tier.USER_FOR_AGENT
    assert with_agent.write_place == ns("workspace:acme/user:dana/agent:helper")
    without = Identity("acme", "dana", verified=True).tiers
    assert without.write_tier is Tier.USER and without.write_place == ns("workspace:acme/user:dana")
    assert Identity("acme").tiers.write_place is None


def test_read_reach_is_own_tiers_agent_and_institutional_never_another_user() -> None:
    reach = Identity("acme", "dana", "helper", verified=True).tiers.read_reach
    for inside in (
        "workspace:acme",
        "workspace:acme/agent:helper",
        "workspace:acme/user:dana",
        "workspace:acme/user:dana/agent:helper",
    ):
        assert ns(inside) in reach, inside
    for outside in (
        "workspace:acme/user:eve",
        "workspace:acme/user:eve/agent:helper",
        "workspace:acme/agent:other",
        "workspace:acme/user:dana/agent:other",
        "workspace:globex",
        "workspace:globex/user:dana",
        "",
        "workspace:acme/memory:brain",
    ):
        assert ns(outside) not in reach, outside


def test_read_reach_without_an_agent_is_the_user_and_the_workspace() -> None:
    tiers = Identity("acme", "dana", verified=True).tiers
    assert tiers.present() == (Tier.USER, Tier.INSTITUTIONAL)
    assert ns("workspace:acme/agent:helper") not in tiers.read_reach
    assert ns("workspace:acme/user:dana/agent:helper") not in tiers.read_reach


def test_own_tiers_are_what_a_conversation_may_forget() -> None:
    tiers = Identity("acme", "dana", "helper", verified=True).tiers
    assert tiers.own() == (Tier.USER_FOR_AGENT, Tier.USER)
    assert tiers.own_reach is not None
    assert ns("workspace:acme") not in tiers.own_reach
    assert ns("workspace:acme/agent:helper") not in tiers.own_reach
    assert Identity("acme", agent="helper").tiers.own_reach is None


def test_tier_of_names_only_this_identitys_tiers() -> None:
    tiers = Identity("acme", "dana", "helper", verified=True).tiers
    assert tiers.tier_of(ns("workspace:acme/agent:helper")) is Tier.AGENT
    assert tiers.tier_of(ns("workspace:acme/user:eve")) is None


def test_only_a_verified_named_user_counts_as_verified() -> None:
    assert Identity("acme", "dana", verified=True).is_verified_user
    assert not Identity("acme", "dana").is_verified_user  # API key or unproven
    assert not Identity("acme", verified=True).is_verified_user  # no user: anonymous


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"workspace": ""}, "workspace"),
        ({"workspace": None}, "workspace"),
        ({"workspace": "acme/user:eve"}, "workspace"),
        ({"workspace": "acme", "user": "eve/agent:x"}, "user"),
        ({"workspace": "acme", "user": 5}, "user"),
        ({"workspace": "acme", "agent": "a b"}, "agent"),
        ({"workspace": "acme", "verified": "yes"}, "verified"),
    ],
)
def test_bad_identities_are_refused_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequest, match=rf"^identity: `{field}`"):
        Identity(**kwargs)  # type: ignore[arg-type]
