"""Opaque cursors: base64url JSON bound to the query that made them (a foreign cursor is refused)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from tinymemory.api.errors import InvalidRequest


def fingerprint(*parts: object) -> str:
    """A short digest of the request fields a cursor must not outlive (query, mode, filter, hint)."""
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:16]


def _encode(doc: dict[str, Any]) -> str:
    raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode(op: str, cursor: str, kind: str, fp: str) -> dict[str, Any]:
    bad = InvalidRequest(f"{op}: `cursor` is not a cursor returned by this engine")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        doc = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise bad from None
    if not isinstance(doc, dict) or doc.get("k") != kind:
        raise bad
    if doc.get("f") != fp:
        raise InvalidRequest(f"{op}: `cursor` belongs to a different query or filter")
    return doc


@dataclass(frozen=True, slots=True)
class FetchCursor:
    """Pages of one ranking: rows after `snapshot` are invisible, `pool` fixes the fused pool size."""

    snapshot: int
    offset: int
    pool: int

    def encode(self, fp: str) -> str:
        return _encode({"k": "fetch", "s": self.snapshot, "o": self.offset, "p": self.pool, "f": fp})

    @classmethod
    def decode(cls, op: str, cursor: str, fp: str) -> FetchCursor:
        doc = _decode(op, cursor, "fetch", fp)
        values = (doc.get("s"), doc.get("o"), doc.get("p"))
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
            raise InvalidRequest(f"{op}: `cursor` is not a cursor returned by this engine")
        return cls(int(doc["s"]), int(doc["o"]), int(doc["p"]))


@dataclass(frozen=True, slots=True)
class ListCursor:
    """Keyset position: the (observed_at, id) of the last item returned."""

    observed_us: int
    item_id: str

    def encode(self, fp: str) -> str:
        return _encode({"k": "list", "t": self.observed_us, "i": self.item_id, "f": fp})

    @classmethod
    def decode(cls, op: str, cursor: str, fp: str) -> ListCursor:
        doc = _decode(op, cursor, "list", fp)
        t, i = doc.get("t"), doc.get("i")
        if not (isinstance(t, int) and not isinstance(t, bool) and isinstance(i, str)):
            raise InvalidRequest(f"{op}: `cursor` is not a cursor returned by this engine")
        return cls(t, i)
