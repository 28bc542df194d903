"""What a rule reads from one clause: the learning with its subject."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import About


@dataclass(frozen=True, slots=True)
class RuleLearning:
    """A learning read from one clause of one turn."""

    text: str
    kind: str
    about: About | None
    confidence: float
    event_from: datetime | None = None
    event_to: datetime | None = None
    named: str | None = None  # the pet's or relative's name this learning binds to its subject
