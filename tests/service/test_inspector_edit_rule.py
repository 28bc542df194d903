"""Which memories the inspector can correct in place: the rule itself, over real items and identities,
for the cases the HTTP tests cannot reach (items written by other means than memory__remember)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from tinymemory.api import About, ItemKind, ItemMeta, MemoryItem, Namespace, Relation
from tinymemory.policy import Identity
from tinymemory.service.inspector.edit_rule import (
    NO_SUBJECT,
    NOT_YOURS,
    OLDER_VERSION,
    WOULD_DROP,
    correction_refusal,
)

ALICE = Identity("acme", "alice", verified=True).tiers
WITH_AGENT = Identity("acme", "alice", "helper", verified=True).tiers
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def learning(namespace: Namespace | None = ALICE.user, **meta: Any) -> MemoryItem:
    assert namespace is not None
    fields = ItemMeta(namespace=namespace, learning_kind="general", about=About("place", "gym"))
    return MemoryItem("m_1", ItemKind.LEARNING, "The gym opens at six", replace(fields, **meta), 0.8, NOW)


def test_a_current_remembered_memory_of_ones_own_with_a_subject_can_be_corrected() -> None:
    assert correction_refusal(ALICE, learning()) is None


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (learning(ALICE.institutional), NOT_YOURS),
        (learning(Identity("acme", "bob").tiers.user), NOT_YOURS),
        (replace(learning(), superseded_by="m_2", valid_to=NOW), OLDER_VERSION),
        (learning(about=None), NO_SUBJECT),
        (learning(evidence=("m_0",)), WOULD_DROP),
        (learning(relations=(Relation("alice", "goes_to", "gym"),)), WOULD_DROP),
        (learning(tags=("fitness",)), WOULD_DROP),
        (learning(event_from=NOW), WOULD_DROP),
        (replace(learning(), kind=ItemKind.DOCUMENT), WOULD_DROP),
    ],
)
def test_what_cannot_be_corrected_says_why(item: MemoryItem, why: str) -> None:
    assert correction_refusal(ALICE, item) == why


def test_only_the_tier_a_remember_writes_to() -> None:
    """With an agent a remember lands in user_for_agent, so a user-tier memory cannot be superseded."""
    assert correction_refusal(WITH_AGENT, learning(WITH_AGENT.user_for_agent)) is None
    refusal = correction_refusal(WITH_AGENT, learning(WITH_AGENT.user))
    assert refusal is not None and "user_for_agent" in refusal
