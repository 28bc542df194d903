"""How one LangGraph item is kept as a tinymemory memory, and read back exactly.

Each `put` stores a new version (a learning) at the mapped namespace:

- `about` = (`langgraph`, key) names the item, so the new version supersedes the previous one and the
  engine's bitemporal history keeps every value the key had; a key tinymemory cannot hold as an about
  key (blank, too long, or with a NUL) is named by its SHA-256 instead, under `langgraph-sha256`;
- `text` is what search ranks: the indexed fields' text (LangGraph's `index` paths), so hybrid
  retrieval runs over exactly those fields; an item with nothing to index carries no `indexed` tag,
  which keeps it out of ranking while filters still find it;
- the envelope (key, value, created_at, updated_at, ttl, expires_at) is one JSON document split over
  `meta.extra` pairs, so the value and both timestamps round-trip exactly;
- with the store's own embeddings (`index["embed"]`), one vector per indexed text (each field, as
  LangGraph embeds them) travels in `meta.extra` too, under the name of the embeddings that made it
  and the paths it was made from, so a search scores an item by its best field, and a vector made by
  other embeddings is recognised as stale;
- `evidence` names the key's first version: forgetting that one forgets every later version with it
  (the engines forget what cites a forgotten memory), so a delete leaves no old value readable.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
from langgraph.store.base import get_text_at_path

from tinymemory.api import About, InvalidRequest, ItemKind, ItemMeta, MemoryItem, Namespace, NewItem, Source
from tinymemory.api.echo import echo
from tinymemory.api.validate import MAX_FIELD_CHARS, MAX_TEXT_CHARS
from tinymemory.integrations.langgraph_names import to_labels

SOURCE = "langgraph"
ABOUT_KIND = "langgraph"
HASHED_ABOUT_KIND = "langgraph-sha256"
INDEXED_TAG = "langgraph-indexed"
_CHUNK_KEY = "langgraph:"
_VECTORS_KEY = "langgraph-vectors:"
MAX_ENVELOPE_CHARS = MAX_TEXT_CHARS
MAX_VALUE_DEPTH = 100  # how deeply a stored value may nest (checking one recurses)


@dataclass(frozen=True, slots=True)
class Record:
    """One live LangGraph item as read from its active version."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    ttl: float | None
    expires_at: datetime | None
    item: MemoryItem

    def field_vectors(self) -> FieldVectors | None:
        """The vectors of this version's indexed texts, when the store's own embeddings made some."""
        return _vectors(self.item)

    @property
    def first_id(self) -> str:
        """The id of the key's first version (the one every later version cites)."""
        return self.item.meta.evidence[0] if self.item.meta.evidence else self.item.id

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


def about_for(key: str) -> About:
    """The about pair naming `key` (readable when tinymemory can hold the key as it is)."""
    usable = bool(key.strip()) and len(key) <= MAX_FIELD_CHARS and "\x00" not in key
    if usable:
        try:
            key.encode("utf-8")
        except UnicodeEncodeError:
            usable = False
    if usable:
        return About(ABOUT_KIND, key)
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return About(HASHED_ABOUT_KIND, digest)


def check_key(op: str, key: object) -> str:
    if not isinstance(key, str):
        raise InvalidRequest(f"{op}: `key` must be a string, got {type(key).__name__}")
    return key


def check_value(op: str, value: object) -> dict[str, Any]:
    """A JSON object: str keys, JSON values (tuples read back as lists). Refused otherwise, naming the
    path of the first bad part, so nothing is stored that would not read back as it was written."""
    if not isinstance(value, Mapping):
        raise InvalidRequest(f"{op}: `value` must be a dict, got {type(value).__name__}")
    _check_json(op, "value", value)
    return dict(value)


def _check_json(op: str, where: str, value: object, depth: int = 0) -> None:
    if depth > MAX_VALUE_DEPTH:
        raise InvalidRequest(f"{op}: `{where}` is nested more than {MAX_VALUE_DEPTH} levels deep")
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidRequest(f"{op}: `{where}` is {value}, which JSON cannot hold")
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidRequest(f"{op}: `{where}` has a key that is not a string ({echo(k)})")
            _check_json(op, f"{where}.{k}", v, depth + 1)
        return
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_json(op, f"{where}[{i}]", v, depth + 1)
        return
    raise InvalidRequest(f"{op}: `{where}` is a {type(value).__name__}, which is not JSON")


def _dumps(doc: object) -> str:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so it still reads back as written
        text = json.dumps(doc, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


def _chunks(text: str) -> tuple[tuple[str, str], ...]:
    size = MAX_FIELD_CHARS
    return tuple((f"{_CHUNK_KEY}{i}", text[at : at + size]) for i, at in enumerate(range(0, len(text), size)))


def _clean(text: str) -> str:
    """Search text the engines accept: no NUL, no lone surrogate, within the text bound."""
    text = text.replace("\x00", " ")
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text[:MAX_TEXT_CHARS]


def field_texts(value: Mapping[str, Any], paths: Sequence[str] | None) -> list[str]:
    """The indexed paths' texts, one per field found (LangGraph's path syntax; `$` is the whole value
    as JSON); empty when nothing is indexed."""
    texts: list[str] = []
    for path in paths or ():
        texts.extend(t for t in (_clean(t).strip() for t in get_text_at_path(dict(value), path)) if t)
    return texts


def index_text(value: Mapping[str, Any], paths: Sequence[str] | None) -> str:
    """The text search ranks an item by: the indexed fields' texts joined."""
    return _clean("\n".join(field_texts(value, paths))).strip()


Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class FieldVectors:
    """One vector per indexed text of a version, the embeddings that made them and the paths."""

    embedder: str
    paths: tuple[str, ...]
    rows: Matrix

    def pairs(self) -> tuple[tuple[str, str], ...]:
        raw = base64.b64encode(np.ascontiguousarray(self.rows, dtype="<f4").tobytes()).decode("ascii")
        doc = _dumps({"e": self.embedder, "p": list(self.paths), "n": int(self.rows.shape[0]), "v": raw})
        size = MAX_FIELD_CHARS
        return tuple(
            (f"{_VECTORS_KEY}{i}", doc[at : at + size]) for i, at in enumerate(range(0, len(doc), size))
        )


def _vectors(item: MemoryItem) -> FieldVectors | None:
    parts = sorted(
        (int(k[len(_VECTORS_KEY) :]), v)
        for k, v in item.meta.extra
        if k.startswith(_VECTORS_KEY) and k[len(_VECTORS_KEY) :].isdigit()
    )
    if not parts:
        return None
    try:
        doc = json.loads("".join(v for _, v in parts))
        flat = np.frombuffer(base64.b64decode(doc["v"], validate=True), dtype="<f4")
        count = int(doc["n"])
        rows = flat.reshape(count, -1) if count else np.zeros((0, 0), dtype=np.float32)
        return FieldVectors(str(doc["e"]), tuple(str(p) for p in doc["p"]), rows.astype(np.float32))
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None


@dataclass(frozen=True, slots=True)
class Version:
    """What the next version of a key carries over from the current one."""

    created_at: datetime
    first_id: str | None


def new_item(
    *,
    namespace: Namespace,
    key: str,
    value: Mapping[str, Any],
    text: str,
    updated_at: datetime,
    previous: Version | None,
    ttl: float | None,
    expires_at: datetime | None,
    op: str,
    vectors: FieldVectors | None = None,
) -> NewItem:
    """The version a put (or a TTL refresh) stores."""
    created_at = previous.created_at if previous is not None else updated_at
    envelope = _dumps(
        {
            "key": key,
            "value": value,
            "created_at": created_at.isoformat(),
            "updated_at": updated_at.isoformat(),
            "ttl": ttl,
            "expires_at": expires_at.isoformat() if expires_at is not None else None,
        }
    )
    if len(envelope) > MAX_ENVELOPE_CHARS:
        raise InvalidRequest(
            f"{op}: `key` and `value` are too large together ({len(envelope)} characters as JSON,"
            f" at most {MAX_ENVELOPE_CHARS})"
        )
    indexed = bool(text)
    # an item with nothing to index still needs a text: its value, kept out of ranking by the tag
    body = text if indexed else _clean(json.dumps(value, sort_keys=True, ensure_ascii=False))
    first = previous.first_id if previous is not None else None
    return NewItem(
        kind=ItemKind.LEARNING,
        text=body,
        meta=ItemMeta(
            namespace=namespace,
            source=Source(SOURCE),
            tags=(INDEXED_TAG,) if indexed else (),
            about=about_for(key),
            evidence=(first,) if first else (),
            observed_at=updated_at,
            extra=_chunks(envelope) + (vectors.pairs() if vectors is not None else ()),
        ),
        identity=uuid.uuid4().hex,  # every put is a version of its own, even with the same value
    )


def expiry(now: datetime, ttl: float | None) -> datetime | None:
    return None if ttl is None else now + timedelta(minutes=ttl)


def decode(item: MemoryItem, base: Namespace) -> Record | None:
    """The LangGraph item an engine memory holds, or None when it is not one this store wrote."""
    labels = to_labels(base, item.meta.namespace)
    if labels is None or item.meta.source is None or item.meta.source.kind != SOURCE:
        return None
    parts = sorted(
        (int(k[len(_CHUNK_KEY) :]), v)
        for k, v in item.meta.extra
        if k.startswith(_CHUNK_KEY) and k[len(_CHUNK_KEY) :].isdigit()
    )
    if not parts:
        return None
    try:
        doc = json.loads("".join(v for _, v in parts))
        key, value = doc["key"], doc["value"]
        created = datetime.fromisoformat(doc["created_at"]).astimezone(UTC)
        updated = datetime.fromisoformat(doc["updated_at"]).astimezone(UTC)
        ttl = doc.get("ttl")
        expires = datetime.fromisoformat(doc["expires_at"]).astimezone(UTC) if doc.get("expires_at") else None
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(key, str) or not isinstance(value, dict):
        return None
    return Record(
        namespace=labels,
        key=key,
        value=value,
        created_at=created,
        updated_at=updated,
        ttl=float(ttl) if isinstance(ttl, int | float) else None,
        expires_at=expires,
        item=item,
    )
