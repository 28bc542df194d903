"""Times as integer microseconds since the epoch (UTC): how both SQL engines store every instant,
exact, compact and ordered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["from_us", "opt_from_us", "opt_to_us", "to_us"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_us(value: datetime) -> int:
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_us(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


def opt_from_us(value: int | None) -> datetime | None:
    return None if value is None else from_us(value)


def opt_to_us(value: datetime | None) -> int | None:
    return None if value is None else to_us(value)
