"""Compact, JSON-ready results: what the model reads back. The namespace is never rendered.

Only a small meta subset is shown (source, file_path, url, thread_id, tags, observed_at); absent values
are left out so every token the model reads carries something.
"""

from __future__ import annotations

import math
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


def item(it: MemoryItem, hit_score: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": it.id, "kind": it.kind.value, "text": it.text}
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


def recall(result: RecallResult) -> dict[str, Any]:
    return {"answer": result.answer, "citations": [item(c.item, c.score) for c in result.citations]}


def fetch(result: FetchResult) -> dict[str, Any]:
    return _with_cursor({"hits": [item(h.item, h.score) for h in result.hits]}, result.next_cursor)


def listing(result: ListResult) -> dict[str, Any]:
    return _with_cursor({"items": [item(i) for i in result.items]}, result.next_cursor)


def get(result: GetResult) -> dict[str, Any]:
    return {"items": [item(i) for i in result.items], "missing": list(result.missing)}


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
