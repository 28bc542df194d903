"""Time hints: memory about the asked-for days ranks first; nothing is dropped.

Engines call `span_of` with whatever columns they hold and `partition_by_hint` on their ranked pool,
so every engine orders hinted results the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from tinymemory.api.filters import TimeHint
from tinymemory.api.items import MemoryItem

T = TypeVar("T")


def span_of(
    event_from: datetime | None, event_to: datetime | None, observed_at: datetime | None
) -> tuple[datetime, datetime] | None:
    """The instants a memory is about: its event range if known (one end stands for both when the
    other is missing), else the instant it was observed."""
    if event_from is not None or event_to is not None:
        start = event_from if event_from is not None else event_to
        end = event_to if event_to is not None else event_from
        assert start is not None and end is not None
        return start, end
    if observed_at is not None:
        return observed_at, observed_at
    return None


def span_matches(start: datetime, end: datetime, hint: TimeHint) -> bool:
    """True when the closed span [start, end] overlaps the half-open window [hint.start, hint.end)."""
    return start < hint.end and end >= hint.start


def matches_hint(item: MemoryItem, hint: TimeHint) -> bool:
    """True when the memory's event range (else its observed instant) overlaps the hint's window."""
    meta = item.meta
    span = span_of(meta.event_from, meta.event_to, meta.observed_at)
    return span is not None and span_matches(span[0], span[1], hint)


def partition_by_hint(ranked: Sequence[T], hint: TimeHint | None, inside: Callable[[T], bool]) -> list[T]:
    """Stable partition: entries for which `inside` holds first, each group in its rank order."""
    if hint is None:
        return list(ranked)
    flags = [inside(r) for r in ranked]
    return [r for r, f in zip(ranked, flags, strict=True) if f] + [
        r for r, f in zip(ranked, flags, strict=True) if not f
    ]


def partition_items(
    ranked: Sequence[T], hint: TimeHint | None, item_of: Callable[[T], MemoryItem]
) -> list[T]:
    """`partition_by_hint` for ranked entries that carry decoded items."""
    if hint is None:
        return list(ranked)
    return partition_by_hint(ranked, hint, lambda r: matches_hint(item_of(r), hint))
