"""Time hints: memory about the asked-for days ranks first; nothing is dropped.

Engines call `span_of` with whatever columns they hold and `partition_by_hint` on their ranked pool,
so every engine orders hinted results the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from tinymemory.api.filters import TimeHint
from tinymemory.api.items import MemoryItem, NewItem
from tinymemory.api.timeutil import utcnow
from tinymemory.retrieval.dates import covering, event_range, resolve

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


def boost_by_hint(
    ranked: Sequence[tuple[T, float]], inside: Callable[[T], bool], boost: float
) -> list[tuple[T, float]]:
    """Soft boost for a hint read from the query itself: matching scores times (1 + boost), re-sorted.

    A derived hint may be wrong, so it only tilts the order; ties keep the incoming order.
    """
    if boost <= 0:
        return list(ranked)
    rescored = [(key, s * (1.0 + boost) if inside(key) else s) for key, s in ranked]
    order = sorted(range(len(rescored)), key=lambda i: (-rescored[i][1], i))
    return [rescored[i] for i in order]


def hint_from_query(query: str, anchor: datetime) -> TimeHint | None:
    """The days a question is about, from its own time expressions (relative ones against `anchor`)."""
    cover = covering(resolve(query, anchor))
    return None if cover is None else TimeHint(start=cover[0], end=cover[1])


def with_event_range(item: NewItem, now: datetime | None = None) -> NewItem:
    """The item with an event range resolved from its text against its observed_at (else `now`), when it
    has none of its own; unchanged otherwise."""
    meta = item.meta
    if meta.event_from is not None or meta.event_to is not None:
        return item
    found = event_range(item.text, meta.observed_at or now or utcnow())
    if found is None:
        return item
    return replace(item, meta=replace(meta, event_from=found[0], event_to=found[1]))
