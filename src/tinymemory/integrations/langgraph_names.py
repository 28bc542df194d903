"""LangGraph namespace tuples <-> tinymemory namespaces, injective and reversible.

A LangGraph namespace is a tuple of labels (any non-empty strings without `.` or NUL); a tinymemory
namespace is a path of `kind:name` segments with a strict name grammar. Each label becomes one segment
below the store's base namespace:

- a label that is already a valid name becomes `lg:<label>` (so `("users", "u1")` reads
  `lg:users/lg:u1`, and tinymemory's own tools and reaches can name it);
- any other label becomes `lgx:x<escaped>`: characters outside `[A-Za-z0-9_@+=~-]` are written as
  `.hh` per UTF-8 byte. Labels never hold `.`, so the escape cannot be confused with a plain
  character;
- a label whose escaped form is longer than a name may be becomes `lgb:x<base64url of its UTF-8>`
  (up to 95 bytes), denser but unreadable.

The kind says which form a name is in, and each label has exactly one form, so the map is injective
both ways. What tinymemory cannot hold is refused, never truncated: a namespace deeper than the engine
allows, or a label too long for any form.
"""

from __future__ import annotations

import base64
import binascii
import re

from tinymemory.api import InvalidRequest, Namespace, Segment
from tinymemory.api.namespace import MAX_DEPTH

PLAIN_KIND = "lg"
ESCAPED_KIND = "lgx"
PACKED_KIND = "lgb"
MAX_NAME_CHARS = 128
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_@+=~-]{0,127}")
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@+=~-")
_ESCAPE = re.compile(r"\.([0-9a-f]{2})")


def _escape(label: str) -> str:
    out: list[str] = []
    for ch in label:
        if ch in _SAFE:
            out.append(ch)
        else:
            out.extend(f".{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
    return "x" + "".join(out)


def _unescape(name: str) -> str | None:
    body = name[1:]
    raw = bytearray()
    at = 0
    while at < len(body):
        if body[at] == ".":
            match = _ESCAPE.match(body, at)
            if match is None:
                return None
            raw.append(int(match.group(1), 16))
            at = match.end()
        elif body[at] in _SAFE:
            raw.extend(body[at].encode("ascii"))
            at += 1
        else:
            return None
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def _pack(label: str) -> str:
    raw = label.encode("utf-8", "surrogatepass")
    return "x" + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unpack(name: str) -> str | None:
    body = name[1:]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        return raw.decode("utf-8", "surrogatepass")
    except (binascii.Error, ValueError):
        return None


def _segment(label: str) -> Segment:
    """The one segment a label maps to (its name may be too long; the caller checks)."""
    if _PLAIN.fullmatch(label):
        return Segment(PLAIN_KIND, label)
    escaped = _escape(label)
    if len(escaped) <= MAX_NAME_CHARS:
        return Segment(ESCAPED_KIND, escaped)
    return Segment(PACKED_KIND, _pack(label))


def label_segment(label: str, *, op: str, field: str) -> Segment:
    """The segment a label maps to. Raises InvalidRequest (`op: \\`field\\` ...`) when even its
    densest name would be longer than a segment name may be."""
    seg = _segment(label)
    if len(seg.name) > MAX_NAME_CHARS:
        raise InvalidRequest(
            f"{op}: `{field}` is too long for a tinymemory namespace segment"
            f" ({len(label.encode('utf-8', 'surrogatepass'))} bytes of UTF-8; at most 95, or 128"
            " characters of A-Z a-z 0-9 _ @ + = ~ -)"
        )
    return seg


def to_namespace(base: Namespace, labels: tuple[str, ...], *, op: str, field: str = "namespace") -> Namespace:
    """`labels` placed below `base`. Labels are assumed already checked by LangGraph's rules (strings,
    non-empty, no `.` or NUL); raises InvalidRequest when the path is too deep or a label too long."""
    if base.depth + len(labels) > MAX_DEPTH:
        raise InvalidRequest(
            f"{op}: `{field}` has {len(labels)} labels; this store holds at most"
            f" {MAX_DEPTH - base.depth} (tinymemory namespaces are at most {MAX_DEPTH} segments deep)"
        )
    segments = tuple(label_segment(lb, op=op, field=f"{field}[{i}]") for i, lb in enumerate(labels))
    return Namespace(base.segments + segments)


def to_labels(base: Namespace, namespace: Namespace) -> tuple[str, ...] | None:
    """The tuple a namespace below `base` stands for, or None when it is not one this store wrote
    (outside `base`, another segment kind, or a name no label escapes to)."""
    if not namespace.is_within(base):
        return None
    labels: list[str] = []
    for seg in namespace.segments[base.depth :]:
        if seg.kind == PLAIN_KIND:
            label: str | None = seg.name
        elif seg.kind == ESCAPED_KIND:
            label = _unescape(seg.name)
        elif seg.kind == PACKED_KIND:
            label = _unpack(seg.name)
        else:
            return None
        # only the one segment this store writes for a label: keeps the reverse map injective too
        if not label or _segment(label) != seg:
            return None
        labels.append(label)
    return tuple(labels)
