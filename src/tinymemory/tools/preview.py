"""Bounded texts: how much of a memory's text one tool result may carry.

A model's context is small and a memory may be a whole document, so a long text comes back as its
opening, marked truncated with its full size, and the model asks for the rest by id. Sizes are bytes
of the compact JSON the model reads (UTF-8 plus JSON's escapes), so a bound stated here holds for the
text a runtime sends whatever the memory holds (emoji, CJK, quotes, newlines, control characters).
The full size reported beside a preview is the text's plain UTF-8 size.

These are pure functions: memory_recall/fetch/list/get use them through `render`, and the policy tools
(content_preview, has_full_body) reuse them as they are.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tinymemory.api import InvalidRequest
from tinymemory.tools.spec import MIN_PREVIEW_BYTES, PREVIEW_BYTES, RESULT_BYTES

WORD_BACKOFF_CHARS = 64  # a cut mid-word steps back to the last space when it is this close
_JOINERS = frozenset("\u200d\u200c\ufe0e\ufe0f")  # ZWJ, ZWNJ, text/emoji presentation selectors


@dataclass(frozen=True, slots=True)
class ResultBounds:
    """`preview_bytes`: the most one text may take before it becomes a preview; `result_bytes`: the
    most one whole tool result may take."""

    preview_bytes: int = PREVIEW_BYTES
    result_bytes: int = RESULT_BYTES

    def __post_init__(self) -> None:
        _check("preview_bytes", self.preview_bytes, MIN_PREVIEW_BYTES, f"at least {MIN_PREVIEW_BYTES}")
        _check("result_bytes", self.result_bytes, self.preview_bytes, "at least `preview_bytes`")


def _check(name: str, value: object, low: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(f"tools: `{name}` must be an integer, got {type(value).__name__}")
    if value < low:
        raise InvalidRequest(f"tools: `{name}` must be {what} ({low}), got {value}")


@dataclass(frozen=True, slots=True)
class Preview:
    """What a result shows of one text: all of it, or its opening when `truncated`."""

    text: str
    truncated: bool
    full_bytes: int  # the whole text's UTF-8 size


# one encoder for every measure (json.dumps with options builds a new one per call; a recall measures
# its result and each of its bodies)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_size(value: Any) -> int:
    """Bytes of `value` as compact JSON, the form tool results are sent in."""
    raw = _COMPACT.encode(value)
    return len(raw.encode("utf-8", "surrogatepass"))


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def text_size(text: str, cap: int) -> int:
    """The JSON size of `text` without its quotes, or `cap + 1` when it is larger than `cap`.

    Every character takes at least one byte, so only the first `cap + 1` need measuring.
    """
    return min(json_size(text[: cap + 1]) - 2, cap + 1)


def _extends(ch: str) -> bool:
    """Whether `ch` belongs to the character before it (a combining mark, a joiner, a skin tone)."""
    return (
        ch in _JOINERS or unicodedata.category(ch) in ("Mn", "Mc", "Me") or "\U0001f3fb" <= ch <= "\U0001f3ff"
    )


def opening(text: str, limit: int) -> str:
    """The longest opening of `text` within `limit` JSON bytes, cut between whole characters.

    The cut never splits a character or a joined sequence (an accent, an emoji family), and a cut
    inside a word steps back to the last space when one is near; long unbroken runs (CJK, URLs) are
    cut at a character.
    """
    if limit <= 0:
        return ""
    head = text[:limit]  # every character takes at least one byte
    fits, over = 0, len(head) + 1  # a prefix length that fits, and one that does not (or is past the end)
    while over - fits > 1:
        mid = (fits + over) // 2
        if json_size(head[:mid]) - 2 <= limit:
            fits = mid
        else:
            over = mid
    end = fits
    while 0 < end < len(text) and (_extends(text[end]) or text[end - 1] in _JOINERS):
        end -= 1
    if 0 < end < len(text) and not text[end].isspace() and not text[end - 1].isspace():
        space = max(
            (i for i in range(max(0, end - WORD_BACKOFF_CHARS), end) if text[i].isspace()), default=-1
        )
        if space > 0:
            end = space
    return text[:end].rstrip()


def preview(text: str, limit: int) -> Preview:
    """`text` whole when it fits `limit` JSON bytes, else its opening, marked truncated."""
    full = utf8_size(text)
    if text_size(text, limit) <= limit:
        return Preview(text, False, full)
    return Preview(opening(text, limit), True, full)


def clip(text: str, limit: int, mark: str = "…") -> str:
    """`text` within `limit` JSON bytes, its opening followed by `mark` when cut (for free text)."""
    if text_size(text, limit) <= limit:
        return text
    return opening(text, limit - (json_size(mark) - 2)) + mark


def fair_share(sizes: Sequence[int], room: int, cap: int) -> int:
    """The largest share `c <= cap` with `sum(min(size, c)) <= room`: texts share the room evenly,
    and a short text leaves what it does not need to the long ones."""
    if room <= 0:
        return 0
    left, count = room, len(sizes)
    for size in sorted(sizes):
        if size >= cap:
            break
        even = left // count
        if size > even:
            return even
        left -= size
        count -= 1
    return cap if count == 0 else min(cap, left // count)
