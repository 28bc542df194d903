"""Strict RFC 3339 reading and UTC normalisation, shared by every layer that accepts instants.

Every instant must exist in UTC: `0001-01-01T00:00:00+23:59` is a valid RFC 3339 string whose UTC
instant falls before year 1, which Python's datetime cannot hold, so it is refused as out of range.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest

# ASCII digits only (`\d` would take any script's digits) and matched in full (`$` allows a trailing "\n").
_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
OUT_OF_RANGE = "is outside the supported date range (years 1 to 9999 in UTC)"


def parse_rfc3339(value: object, *, field: str, op: str | None = None) -> datetime:
    """Parse an RFC 3339 timestamp with an explicit offset; the result is aware and in UTC.

    Errors read `field: ...`, or `op: \\`field\\` ...` when `op` is given (the tools' style).
    """

    def bad(problem: str) -> InvalidRequest:
        where = f"{op}: `{field}`" if op else f"{field}:"
        return InvalidRequest(f"{where} `{echo(value)}` {problem}")

    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise bad("is not an RFC 3339 timestamp (e.g. 2024-05-08T13:56:00Z)")
    text = value.replace("z", "Z").replace("Z", "+00:00").replace("t", "T")
    frac = re.search(r"\.([0-9]+)", text)
    if frac and len(frac.group(1)) > 6:
        text = text.replace(frac.group(0), "." + frac.group(1)[:6])
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise bad(f"is not a valid date-time ({exc})") from None
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise bad(OUT_OF_RANGE) from None


def ensure_utc(value: datetime, *, field: str) -> datetime:
    """Reject naive datetimes (their zone is a guess) and normalise aware ones to UTC."""
    try:
        naive = value.tzinfo is None or value.utcoffset() is None
    except ValueError:  # a tzinfo whose offset is not within a day
        raise InvalidRequest(f"{field}: datetime has an invalid utc offset") from None
    if naive:
        raise InvalidRequest(f"{field}: datetime must be timezone-aware")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise InvalidRequest(f"{field}: datetime {OUT_OF_RANGE}") from None


def format_rfc3339(value: datetime) -> str:
    """UTC, `Z` suffix, microseconds only when present."""
    value = value.astimezone(UTC)
    text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC: every time the engines store is UTC, so times compare without
    guessing a zone."""
    return datetime.now(UTC)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_us(value: datetime) -> int:
    """An instant as integer microseconds since the epoch (UTC): exact, compact and ordered."""
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_us(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)
