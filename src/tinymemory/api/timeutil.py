"""Strict RFC 3339 reading and UTC normalisation, shared by every layer that accepts instants."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tinymemory.api.errors import InvalidRequest

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$")


def parse_rfc3339(value: object, *, field: str) -> datetime:
    """Parse an RFC 3339 timestamp with an explicit offset; the result is aware and in UTC."""
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise InvalidRequest(
            f"{field}: `{str(value)[:60]}` is not an RFC 3339 timestamp (e.g. 2024-05-08T13:56:00Z)"
        )
    text = value.replace("z", "Z").replace("Z", "+00:00").replace("t", "T")
    frac = re.search(r"\.(\d+)", text)
    if frac and len(frac.group(1)) > 6:
        text = text.replace(frac.group(0), "." + frac.group(1)[:6])
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidRequest(f"{field}: `{value}` is not a valid date-time ({exc})") from None
    return parsed.astimezone(UTC)


def ensure_utc(value: datetime, *, field: str) -> datetime:
    """Reject naive datetimes (their zone is a guess) and normalise aware ones to UTC."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidRequest(f"{field}: datetime must be timezone-aware")
    return value.astimezone(UTC)


def format_rfc3339(value: datetime) -> str:
    """UTC, `Z` suffix, microseconds only when present."""
    value = value.astimezone(UTC)
    text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def utcnow() -> datetime:
    return datetime.now(UTC)
