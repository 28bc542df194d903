"""Compact, JSON-ready memories: the pieces of what the model reads back. The namespace is never rendered.

Only a small meta subset is shown (source, file_path, url, thread_id, tags, observed_at); absent values
are left out so every token the model reads carries something. Every result is bounded (`ResultBounds`):
recall, fetch and list show a long text as its opening, marked `truncated` with its full size in
`bytes`, their texts sharing the result's budget (`shared`); memory_get shows whole texts while they fit
and names the ids that did not in `next_ids`. Each tool renders its own result (`tools/catalog/`) from
these pieces.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tinymemory.api import MemoryItem, format_rfc3339
from tinymemory.tools.preview import (
    Preview,
    ResultBounds,
    fair_share,
    json_size,
    preview,
    text_size,
    utf8_size,
)

DEFAULT_BOUNDS = ResultBounds()
Row = tuple[MemoryItem, float | None]  # an item and its score (None: not ranked)


def score(value: float) -> float:
    """Four decimal places; a non-finite score (never expected) renders as 0."""
    return round(value, 4) if math.isfinite(value) else 0.0


def meta(item: MemoryItem) -> dict[str, Any]:
    m = item.meta
    out: dict[str, Any] = {}
    if m.source is not None:
        source: dict[str, Any] = {"kind": m.source.kind}
        if m.source.id is not None:
            source["id"] = m.source.id
        out["source"] = source
    for name in ("file_path", "url", "thread_id"):
        value = getattr(m, name)
        if value is not None:
            out[name] = value
    if m.tags:
        out["tags"] = list(m.tags)
    if m.observed_at is not None:
        out["observed_at"] = format_rfc3339(m.observed_at)
    return out


def item(it: MemoryItem, hit_score: float | None = None, shown: Preview | None = None) -> dict[str, Any]:
    """One memory; `shown` replaces its text by a preview (with `truncated` and `bytes` beside it)."""
    out: dict[str, Any] = {"id": it.id, "kind": it.kind.value, "text": it.text}
    if shown is not None:
        out["text"] = shown.text
        if shown.truncated:
            out["truncated"] = True
            out["bytes"] = shown.full_bytes
    if hit_score is not None:
        out["score"] = score(hit_score)
    if it.confidence is not None:
        out["confidence"] = score(it.confidence)
    out["meta"] = meta(it)
    return out


def with_cursor(out: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    if cursor is not None:
        out["next_cursor"] = cursor
    return out


def shared(shell: dict[str, Any], key: str, rows: Sequence[Row], bounds: ResultBounds) -> dict[str, Any]:
    """Put `rows` under `key` in `shell`, their texts sharing what the result has left of its budget.

    The rest of the result is measured with every entry an empty preview (the most the markers can
    take); the room left is split evenly, short texts leaving what they do not need to long ones, and
    no text gets more than `preview_bytes`.
    """
    shell[key] = [item(it, s, Preview("", True, utf8_size(it.text))) for it, s in rows]
    room = bounds.result_bytes - json_size(shell)
    cap = bounds.preview_bytes
    share = fair_share([text_size(it.text, cap) for it, _ in rows], room, cap)
    shell[key] = [item(it, s, preview(it.text, share)) for it, s in rows]
    return shell
