"""`add(..., infer=True)`: the facts worth keeping in a conversation's user messages.

With an LLM (tinymemory.llm) the model extracts them; without one the rule-based extractor of the
agent lifecycle does (names, "my X is Y", preferences, "remember that ...", standing instructions,
dated events). A fact with a stable subject (its `About`, say `preference/drink`) gets the same memory
id every time in one scope, so a later "I prefer coffee" updates the memory that held "tea" instead of
adding a contradicting one; a fact without a subject is keyed by its normalised text, so saying it
again adds nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import About, Namespace, Unavailable
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.ids import normalise_text
from tinymemory.api.validate import MAX_TEXT_CHARS, check_unicode
from tinymemory.lifecycle import rules
from tinymemory.llm import LLM

# Fixed, so a fact's memory id is the same in every process (uuid5 of its scope and subject).
_ID_SPACE = uuid.UUID("6c1f5a0e-3b7d-5c2a-9e41-0d8b7f3a2c15")


@dataclass(frozen=True, slots=True)
class Fact(rules.RuleLearning):
    """One fact found in the user's turns (by the model or by the rules), with its subject when it has a
    stable one: a learning as the rules read one, keyed for mem0."""

    @property
    def subject(self) -> tuple[str, ...]:
        """What the fact is about: its About, else its normalised text."""
        if self.about is not None:
            return ("about", self.about.kind, self.about.key)
        return ("text", normalise_text(self.text).lower())

    def memory_id(self, ns: Namespace) -> str:
        """Stable per scope and subject (or per text when the fact has no subject)."""
        return str(uuid.uuid5(_ID_SPACE, "\x1f".join((str(ns), *self.subject))))


async def extract_facts(llm: LLM | None, turns: Sequence[str], said_at: datetime) -> list[Fact]:
    """Facts in the user's turns, latest value per subject, in order of appearance. The LLM's failure
    is raised (Unavailable), never replaced by the rules silently."""
    if not turns:
        return []
    facts: list[Fact] = []
    if llm is not None:
        for i, learning in enumerate(await llm.extract(list(turns))):
            _storable(i, learning.text)
            subject = (
                About(learning.about_kind, learning.about_key)
                if learning.about_kind and learning.about_key
                else None
            )
            facts.append(Fact(learning.text, learning.kind, subject, learning.confidence))
    else:
        for turn in turns:
            for found in rules.extract(turn, said_at):
                facts.append(
                    Fact(
                        found.text,
                        found.kind,
                        found.about,
                        found.confidence,
                        found.event_from,
                        found.event_to,
                    )
                )
    latest: dict[tuple[str, ...], Fact] = {}
    for fact in facts:
        latest.pop(fact.subject, None)  # a new value moves to the end of the order
        latest[fact.subject] = fact
    return list(latest.values())


def _storable(index: int, text: str) -> None:
    """A model's fact the engine could not store is the model's failure (Unavailable, nothing written),
    not the caller's bad input."""
    field = f"learnings[{index}].text"
    if len(text) > MAX_TEXT_CHARS:
        raise Unavailable(f"llm extract: `{field}` is longer than {MAX_TEXT_CHARS} characters")
    try:
        check_unicode("llm extract", field, text)
    except InvalidRequest as exc:
        raise Unavailable(exc.message) from None
