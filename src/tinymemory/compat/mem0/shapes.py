"""What mem0 returns, built from tinymemory items: the memory dicts of get, get_all and search, and
the metadata a mem0 memory carries, kept in the item's `extra` string pairs.

A mem0 memory is one `About("mem0", <memory id>)` subject: every version of it shares that pair, so an
update is a new version that supersedes the last one, and the id stays stable across updates.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tinymemory.api import About, MemoryItem, Namespace
from tinymemory.api.echo import echo
from tinymemory.api.validate import MAX_FIELD_CHARS
from tinymemory.compat.mem0.errors import invalid
from tinymemory.compat.mem0.scope import ENTITY_KEYS, Scope

ABOUT_KIND = "mem0"
_PREFIX = "mem0."
_META = "mem0.meta."
# Result keys mem0 lifts out of the payload when present, in its order.
PROMOTED = ("user_id", "agent_id", "run_id", "actor_id", "role", "attributed_to", "expiration_date")
_LABELS = PROMOTED[3:]  # the promoted keys a memory carries itself (the others are its scope's ids)
_OWN = ("created_at", *_LABELS)
# Keys mem0 itself sets; caller metadata never overrides them.
RESERVED = frozenset({"data", "hash", "created_at", "updated_at", "id", "text_lemmatized", *PROMOTED})
MAX_METADATA_KEYS = 256


def about(memory_id: str) -> About:
    """The subject every version of one mem0 memory shares."""
    return About(ABOUT_KIND, memory_id)


def iso(value: datetime) -> str:
    """A time as mem0 writes it: `datetime.isoformat()` of an aware UTC datetime."""
    return value.astimezone(UTC).isoformat()


def md5(text: str) -> str:
    """mem0's `hash` of a memory's text."""
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def clean_metadata(op: str, metadata: object) -> dict[str, Any]:
    """Caller metadata as a JSON-safe dict; identity keys are dropped (mem0 drops them too: the scope
    comes from the ids), so is anything mem0 keeps for itself."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise invalid(op, "metadata", f"must be a dict, got {type(metadata).__name__}")
    check_metadata_size(op, metadata)
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key:
            raise invalid(op, "metadata", f"keys must be non-empty strings, got {echo(key)}")
        if "\x00" in key or not _encodes(key):
            raise invalid(
                op, "metadata", f"key `{echo(key, 40)}` must be valid unicode without nul characters"
            )
        if key in RESERVED:
            continue
        try:
            encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            raise invalid(
                op,
                f"metadata.{echo(key, 40)}",
                "must be a JSON value (str, number, bool, list, dict, None) nested at most a few levels",
            ) from None
        if not _encodes(encoded):
            raise invalid(op, f"metadata.{echo(key, 40)}", "is not valid unicode (it holds a lone surrogate)")
        if len(encoded) > MAX_FIELD_CHARS or len(key) + len(_META) > MAX_FIELD_CHARS:
            raise invalid(
                op, f"metadata.{echo(key, 40)}", f"is longer than {MAX_FIELD_CHARS} characters as JSON"
            )
        out[key] = json.loads(encoded)
    return out


def check_metadata_size(op: str, metadata: Mapping[str, Any]) -> None:
    """At most MAX_METADATA_KEYS keys: each is a stored pair read back with every hit."""
    if len(metadata) > MAX_METADATA_KEYS:
        raise invalid(op, "metadata", f"has {len(metadata)} keys; at most {MAX_METADATA_KEYS} are kept")


def _encodes(text: str) -> bool:
    """`text` encodes as UTF-8 (holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Fields:
    """What a mem0 memory carries besides its text and scope."""

    created_at: str
    metadata: dict[str, Any] = field(default_factory=dict)
    actor_id: str | None = None
    role: str | None = None
    attributed_to: str | None = None
    expiration_date: str | None = None

    def extra(self) -> tuple[tuple[str, str], ...]:
        """The item's `extra` pairs: own fields as text, caller metadata as JSON."""
        pairs = [(_PREFIX + name, getattr(self, name)) for name in _OWN if getattr(self, name) is not None]
        pairs += [(_META + k, json.dumps(v, ensure_ascii=False)) for k, v in self.metadata.items()]
        return tuple(pairs)

    @classmethod
    def of(cls, item: MemoryItem) -> Fields:
        """The fields kept in `item`'s extra pairs (created_at falls back to its valid_from)."""
        own: dict[str, str] = {}
        metadata: dict[str, Any] = {}
        for key, value in item.meta.extra:
            if key.startswith(_META):
                metadata[key[len(_META) :]] = json.loads(value)
            elif key.startswith(_PREFIX) and key[len(_PREFIX) :] in _OWN:
                own[key[len(_PREFIX) :]] = value
        created = own.pop("created_at", None) or iso(item.valid_from)
        return cls(created_at=created, metadata=metadata, **own)


@dataclass(frozen=True, slots=True)
class View:
    """One active memory as mem0 sees it."""

    id: str
    memory: str
    created_at: str
    updated_at: str
    scope: Scope
    fields: Fields

    @classmethod
    def of(cls, item: MemoryItem, root: Namespace) -> View:
        """`item` (an active version this API wrote under `root`) as mem0 sees it."""
        assert item.meta.about is not None
        found = Scope.from_namespace(item.namespace, root)
        scope = Scope(
            found.user_id, item.meta.agent_id or found.agent_id, item.meta.thread_id or found.run_id
        )
        fields_ = Fields.of(item)
        updated = item.meta.observed_at or item.valid_from
        return cls(item.meta.about.key, item.text, fields_.created_at, iso(updated), scope, fields_)

    def payload(self) -> dict[str, Any]:
        """The flat record mem0's metadata filters read: caller metadata, ids and own fields."""
        out: dict[str, Any] = dict(self.fields.metadata)
        out.update(self.scope.as_dict())
        for name in _LABELS:
            value = getattr(self.fields, name)
            if value is not None:
                out[name] = value
        out.update(
            data=self.memory, hash=md5(self.memory), created_at=self.created_at, updated_at=self.updated_at
        )
        return out

    def is_expired(self, today: datetime) -> bool:
        """Its expiration date is before `today` (mem0 keeps it through that day)."""
        exp = self.fields.expiration_date
        return exp is not None and exp < today.astimezone(UTC).date().isoformat()

    def as_dict(self, *, score: float | None = None, with_score: bool = True) -> dict[str, Any]:
        """mem0's memory dict: its `MemoryItem` fields (score only when asked), then the promoted keys
        that are set, with caller metadata under `metadata` (None when there is none)."""
        out: dict[str, Any] = {
            "id": self.id,
            "memory": self.memory,
            "hash": md5(self.memory),
            "metadata": dict(self.fields.metadata) or None,
        }
        if with_score:
            out["score"] = None if score is None or math.isnan(score) else float(score)
        out["created_at"] = self.created_at
        out["updated_at"] = self.updated_at
        ids = self.scope.as_dict()
        for key in PROMOTED:
            value = ids.get(key) if key in ENTITY_KEYS else getattr(self.fields, key)
            if value is not None:
                out[key] = value
        return out
