"""What the formation rules' tests share: the time a turn is said at, and one turn's learnings as
(text, subject) pairs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules import extract

SAID = datetime(2026, 3, 4, 15, 30, tzinfo=UTC)


def pairs(
    text: str,
    notes: bool = False,
    known: Mapping[str, About] | None = None,
    held: Mapping[About, str] | None = None,
) -> list[tuple[str, About | None]]:
    """`extract`'s learnings of `text`, said at SAID, as (text, subject) pairs."""
    return [(f.text, f.about) for f in extract(text, SAID, notes=notes, known=known, held=held)]
