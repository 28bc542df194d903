"""Times as integer microseconds since the epoch (UTC): how both SQL engines store every instant,
exact, compact and ordered."""

from __future__ import annotations

from datetime import datetime

from tinymemory.api.timeutil import from_us as from_us
from tinymemory.api.timeutil import to_us as to_us

__all__ = ["from_us", "opt_from_us", "opt_to_us", "to_us"]


def opt_from_us(value: int | None) -> datetime | None:
    return None if value is None else from_us(value)


def opt_to_us(value: datetime | None) -> int | None:
    return None if value is None else to_us(value)
