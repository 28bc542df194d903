"""Content-derived identity: storing the same memory twice yields the same id (a replay).

The canonical content is the namespace, the kind, the whitespace-normalised text and the fields that
make two equal texts different memories (parent, thread, file, url, about, explicit identity). Tags,
confidence and observed_at are not identity: re-storing with new tags is still a replay.

When the active memory with a content key was superseded or forgotten, storing that content again
makes a new version; its id takes the next generation so the history keeps every version.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping

from tinymemory.api.errors import InvalidRequest
from tinymemory.api.items import NewItem


def normalise_text(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


# what `json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"))` builds on every call,
# built once (the same bytes; a store's key was a fifth dearer for the encoder made anew each time)
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_key(item: NewItem) -> str:
    """The SHA-256 of what makes a memory itself (namespace, kind, normalised text and the fields that tell
    equal texts apart), from which its id derives: storing the same content again is then a replay, not a
    duplicate. Raises InvalidRequest for text that is not valid Unicode."""
    meta = item.meta
    canonical = {
        "ns": str(meta.namespace),
        "kind": item.kind.value,
        "text": normalise_text(item.text),
        "parent": meta.parent,
        "thread": meta.thread_id,
        "file": meta.file_path,
        "url": meta.url,
        "about": [meta.about.kind, meta.about.key] if meta.about else None,
        "identity": item.identity,
    }
    blob = _CANONICAL.encode(canonical)
    try:
        data = blob.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequest(f"content_key: `{_unencodable(canonical)}` is not valid unicode") from None
    return hashlib.sha256(data).hexdigest()


_FIELD_OF = {"text": "text", "parent": "meta.parent", "thread": "meta.thread_id", "file": "meta.file_path"}
_FIELD_OF |= {"url": "meta.url", "about": "meta.about", "identity": "identity", "ns": "meta.namespace"}


def _unencodable(canonical: Mapping[str, object]) -> str:
    """The item field holding a lone surrogate (engines refuse it earlier; this serves direct callers)."""
    for key, value in canonical.items():
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return _FIELD_OF.get(key, key)
    return "item"


def item_id(key: str, generation: int = 0) -> str:
    """`m_` plus 24 hex digits; generation 0 is the first version of a content key."""
    if generation == 0:
        return "m_" + key[:24]
    return "m_" + hashlib.sha256(f"{key}:{generation}".encode()).hexdigest()[:24]
