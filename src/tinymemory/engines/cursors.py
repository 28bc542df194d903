"""Sealed cursors: opaque, tamper-evident, bound to the query that made them and bounded field by field.

A cursor is urlsafe base64 of `nonce || AES-GCM(JSON)`, under a random 256-bit key each engine keeps in
its storage (an `engine_meta` table in SQLite and in Postgres), with the cursor's kind (fetch or list) as
associated data. Sealing matters twice: an edited cursor could carry values that overflow integer
columns or ask for unbounded scans, and a plain fetch cursor would show its holder the store's largest
rowid, a count of every tenant's writes. AES-GCM keeps the plaintext's length, so every document is
padded to one size before sealing: a cursor's length says nothing of how many digits its rowid has.
Any cursor that does not open, or opens to values out of range, is refused with one message; a cursor
that opens but was made for another query says so.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tinymemory.api.errors import InvalidRequest
from tinymemory.api.filters import MetaFilter
from tinymemory.api.requests import MAX_LIMIT

KEY_NAME = "cursor_key"
_NONCE = 12
_TAG = 16
_AAD = b"tinymemory cursor v1 "
# Every document is padded (with JSON whitespace) to a multiple of this, which the largest fits once.
_PADDED = 128
# one encoder for every seal (json.dumps with options builds a new one per call)
_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True)

MAX_OFFSET = 10_000  # fetch pages stop here: deeper positions are refused, and no cursor points past it
# the largest fused pool a fetch makes (retrieval.pipeline.pool_size at the largest limit)
MAX_POOL = 3 * MAX_LIMIT
MAX_ROWID = 2**63 - 1  # SQLite's INTEGER range (and Postgres's BIGINT)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _us(value: datetime) -> int:
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


MIN_US = _us(datetime.min.replace(tzinfo=UTC))
MAX_US = _us(datetime.max.replace(tzinfo=UTC))
_ITEM_ID = re.compile(r"m_[0-9a-f]{24}")


# The repr of each filter a fingerprint has read, by the filter (a frozen value): a service's callers
# send the same few filters again and again, and a filter's repr (every reach term, kind and bound)
# costs far more than the digest, while the query beside it changes with every call. Filters that are
# equal select the same rows, so they share one repr (the first one read) and one fingerprint.
_FILTER_REPRS: dict[MetaFilter, str] = {}
MAX_FILTER_REPRS = 1024


def _repr(part: object) -> str:
    if type(part) is not MetaFilter:
        return repr(part)
    known = _FILTER_REPRS.get(part)
    if known is None:
        known = repr(part)
        if len(_FILTER_REPRS) >= MAX_FILTER_REPRS:
            _FILTER_REPRS.clear()
        _FILTER_REPRS[part] = known
    return known


def fingerprint(*parts: object) -> str:
    """A short digest of the request fields a cursor must not outlive (query, mode, filter, hint): the
    digest of `repr(parts)`, which is written out here part by part so a filter's repr is made once."""
    text = "(" + ", ".join(_repr(p) for p in parts) + ("," if len(parts) == 1 else "") + ")"
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]


def _bad(op: str) -> InvalidRequest:
    return InvalidRequest(
        f"{op}: `cursor` is not valid (pass back a `next_cursor` exactly as it was returned)"
    )


class CursorCodec:
    """Seals and opens cursor documents with one store's key."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def seal(self, kind: str, doc: dict[str, Any]) -> str:
        nonce = os.urandom(_NONCE)
        plain = _JSON.encode(doc).encode("utf-8")
        plain += b" " * (-len(plain) % _PADDED)
        sealed = nonce + self._aead.encrypt(nonce, plain, _AAD + kind.encode("ascii"))
        return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")

    def open(self, op: str, kind: str, cursor: str) -> dict[str, Any]:
        """The document inside `cursor`, or InvalidRequest when it was not sealed by this key for `kind`."""
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        except (binascii.Error, ValueError):
            raise _bad(op) from None
        if len(raw) <= _NONCE + _TAG or base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != cursor:
            raise _bad(op)  # too short, or not the canonical text of its bytes (padding, stray characters)
        try:
            plain = self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], _AAD + kind.encode("ascii"))
            doc = json.loads(plain)
        except (InvalidTag, ValueError):
            raise _bad(op) from None
        if not isinstance(doc, dict):
            raise _bad(op)
        return doc


def _int(op: str, doc: dict[str, Any], name: str, low: int, high: int) -> int:
    value = doc.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(op)
    return value


def _open(codec: CursorCodec, op: str, kind: str, cursor: str, fp: str) -> dict[str, Any]:
    doc = codec.open(op, kind, cursor)
    if doc.get("f") != fp:
        raise InvalidRequest(f"{op}: `cursor` belongs to a different query or filter")
    return doc


@dataclass(frozen=True, slots=True)
class FetchCursor:
    """Pages of one ranking: rows after `snapshot` are invisible, `pool` fixes the fused pool size."""

    snapshot: int
    offset: int
    pool: int

    def encode(self, codec: CursorCodec, fp: str) -> str | None:
        """The sealed cursor, or None when its offset is past MAX_OFFSET (paging ends there)."""
        if self.offset > MAX_OFFSET:
            return None
        return codec.seal("fetch", {"s": self.snapshot, "o": self.offset, "p": self.pool, "f": fp})

    @classmethod
    def decode(cls, codec: CursorCodec, op: str, cursor: str, fp: str) -> FetchCursor:
        doc = _open(codec, op, "fetch", cursor, fp)
        return cls(
            _int(op, doc, "s", 0, MAX_ROWID),
            _int(op, doc, "o", 0, MAX_OFFSET),
            _int(op, doc, "p", 0, MAX_POOL),
        )


@dataclass(frozen=True, slots=True)
class ListCursor:
    """Keyset position: the (observed_at, id) of the last item returned."""

    observed_us: int
    item_id: str

    def encode(self, codec: CursorCodec, fp: str) -> str:
        return codec.seal("list", {"t": self.observed_us, "i": self.item_id, "f": fp})

    @classmethod
    def decode(cls, codec: CursorCodec, op: str, cursor: str, fp: str) -> ListCursor:
        doc = _open(codec, op, "list", cursor, fp)
        t = _int(op, doc, "t", MIN_US, MAX_US)
        i = doc.get("i")
        if not (isinstance(i, str) and _ITEM_ID.fullmatch(i)):
            raise _bad(op)
        return cls(t, i)
