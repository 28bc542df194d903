"""The small arguments of the mem0 calls, checked the way mem0 checks them, failing as InvalidInput."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.timeutil import ensure_utc, parse_rfc3339
from tinymemory.api.validate import MAX_TEXT_CHARS, check_query
from tinymemory.async_memory.arguments import check_count
from tinymemory.compat.mem0.errors import invalid, stored_text
from tinymemory.compat.mem0.filters import Predicate, compile_filter
from tinymemory.compat.mem0.scope import ENTITY_KEYS, Scope

MAX_MEMORY_ID = 256


def memory_id(op: str, value: object) -> str:
    """A memory id: a non-empty string (mem0 writes UUIDs; any string is looked up)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_MEMORY_ID:
        raise invalid(op, "memory_id", f"must be a non-empty string of at most {MAX_MEMORY_ID} characters")
    return stored_text(op, "memory_id", value.strip())


def top_k(op: str, value: object, limit: object) -> int:
    """mem0's `top_k`; `limit` (its older name) is taken too, not both."""
    if limit is not None:
        if value != 20 and value is not None:
            raise invalid(op, "limit", "is an older name for `top_k`: give one of them")
        value = limit
    return check_count(op, "top_k", value)


def query(op: str, value: object) -> str:
    """A search query, trimmed; blank is refused as mem0 refuses it (the engine's query rules, in the
    engine's words; the call's `checked` makes the error an InvalidInput)."""
    return check_query(op, "query", value).strip()


def text(op: str, field: str, value: object) -> str:
    """A memory's text (or a prompt): a string that is not blank."""
    if not isinstance(value, str) or not value.strip():
        raise invalid(op, field, "must be a non-empty string")
    if len(value) > MAX_TEXT_CHARS:
        raise invalid(op, field, f"is longer than {MAX_TEXT_CHARS} characters")
    return stored_text(op, field, value)


def expiration(op: str, value: object) -> str | None:
    """An expiration date as `YYYY-MM-DD`, from a date, a datetime or that string."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise invalid(op, "expiration_date", f"must be a date in YYYY-MM-DD format, got {echo(value)}")


def timestamp(op: str, value: object) -> datetime | None:
    """When the memory was said: unix seconds, an aware datetime or an RFC 3339 string."""
    if value is None:
        return None
    try:
        if isinstance(value, datetime):
            return ensure_utc(value, field=f"{op}: `timestamp`")
        if isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(value, UTC)
        if isinstance(value, str):
            return parse_rfc3339(value, field="timestamp", op=op)
    except (InvalidRequest, OverflowError, OSError, ValueError) as exc:
        raise invalid(op, "timestamp", f"is not a valid time ({exc})") from None
    raise invalid(op, "timestamp", "must be unix seconds, a timezone-aware datetime or an RFC 3339 string")


@dataclass(frozen=True, slots=True)
class ReadScope:
    """A read's session ids and what is left of its filters to match."""

    scope: Scope
    predicate: Predicate | None


def read_scope(op: str, filters: object, given: Mapping[str, object]) -> ReadScope:
    """mem0 2.x scopes reads by `filters={"user_id": ...}`; the ids are taken top-level too (its
    older form). At least one id is required, as in mem0."""
    if filters is None:
        spec: dict[str, Any] = {}
    elif isinstance(filters, Mapping):
        spec = dict(filters)
    else:
        raise invalid(op, "filters", f"must be a dict, got {type(filters).__name__}")
    ids: dict[str, object] = {}
    for key in ENTITY_KEYS:
        inside, outside = spec.pop(key, None), given.get(key)
        if inside is not None and outside is not None and inside != outside:
            raise invalid(op, key, "is given both top-level and in `filters` with different values")
        ids[key] = inside if inside is not None else outside
    scope = Scope.maybe(op, ids["user_id"], ids["agent_id"], ids["run_id"])
    if scope.is_empty:
        raise invalid(
            op,
            "filters",
            "must contain at least one of: user_id, agent_id, run_id (e.g. filters={'user_id': 'u1'})",
        )
    return ReadScope(scope, compile_filter(op, spec))
