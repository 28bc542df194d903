"""Compact, JSON-ready results: what the model reads back. The namespace is never rendered.

Only a small meta subset is shown (source, file_path, url, thread_id, tags, observed_at); absent values
are left out so every token the model reads carries something. Every result is bounded (`ResultBounds`):
recall, fetch and list show a long text as its opening, marked `truncated` with its full size in
`bytes`, their texts sharing the result's budget; memory_get shows whole texts while they fit and names
the ids that did not in `next_ids`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tinymemory.api import (
    ExploreResult,
    FetchResult,
    ForgetResult,
    GetResult,
    ListResult,
    MemoryItem,
    RecallResult,
    StoreResult,
    format_rfc3339,
)
from tinymemory.tools.preview import (
    Preview,
    ResultBounds,
    clip,
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


def _with_cursor(out: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    if cursor is not None:
        out["next_cursor"] = cursor
    return out


def _shared(shell: dict[str, Any], key: str, rows: Sequence[Row], bounds: ResultBounds) -> dict[str, Any]:
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


def recall(result: RecallResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """The answer is free text with nothing to read further, so a long one is clipped with `…`."""
    rows = [(c.item, c.score) for c in result.citations]
    return _shared({"answer": clip(result.answer, bounds.preview_bytes)}, "citations", rows, bounds)


def fetch(result: FetchResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    shell = _with_cursor({"hits": []}, result.next_cursor)
    return _shared(shell, "hits", [(h.item, h.score) for h in result.hits], bounds)


def listing(result: ListResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    shell = _with_cursor({"items": []}, result.next_cursor)
    return _shared(shell, "items", [(i, None) for i in result.items], bounds)


def get(result: GetResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """Whole texts, in order, while they fit; the ids of the rest go to `next_ids` for another call.

    Room for listing every id in `next_ids` is kept aside, so the bound holds however many are left
    out. A memory that cannot fit even alone, met while nothing has been included, comes back cut to
    the room left (marked truncated), so every call makes progress.
    """
    out: dict[str, Any] = {"items": [], "missing": list(result.missing)}
    used = json_size(out) + json_size({"next_ids": [it.id for it in result.items]})
    items: list[dict[str, Any]] = []
    later: list[str] = []
    for it in result.items:
        whole = item(it)
        cost = json_size(whole) + (1 if items else 0)
        if used + cost <= bounds.result_bytes:
            items.append(whole)
            used += cost
        elif not items:
            room = (
                bounds.result_bytes - used - json_size(item(it, None, Preview("", True, utf8_size(it.text))))
            )
            cut = item(it, None, preview(it.text, max(room, 0)))
            items.append(cut)
            used += json_size(cut)
        else:
            later.append(it.id)
    out["items"] = items
    if later:
        out["next_ids"] = later
    return out


def explore(result: ExploreResult) -> dict[str, Any]:
    return {
        "facet": result.facet.value,
        "buckets": [{"value": b.value, "count": b.count} for b in result.buckets],
        "total": result.total,
        "missing": result.missing,
        "more_buckets": result.more_buckets,
        "truncated": result.truncated,
    }


def store(result: StoreResult) -> dict[str, Any]:
    return {"id": result.id, "replayed": result.replayed}


def forget(forgotten: int, skipped: list[str]) -> dict[str, Any]:
    return {"forgotten": forgotten, "skipped": skipped}


def forget_result(result: ForgetResult, skipped_before: list[str]) -> dict[str, Any]:
    """The engine's skips joined to the ids the tools skipped themselves (outside the reach)."""
    return forget(len(result.forgotten), [*skipped_before, *result.skipped])
