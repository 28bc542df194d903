"""Small builders shared by the conformance tests: namespaces, items, instants, paging."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
)
from tinymemory.api.paging import listed

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def ns(text: str) -> Namespace:
    return Namespace.parse(text)


def at(days: float = 0, minutes: float = 0) -> datetime:
    """An instant relative to T0, so tests never depend on the wall clock for ordering."""
    return T0 + timedelta(days=days, minutes=minutes)


def item(
    text: str, kind: ItemKind = ItemKind.LEARNING, *, confidence: float | None = None, **meta: Any
) -> NewItem:
    """A NewItem with the given meta fields; `namespace` may be a string."""
    if isinstance(meta.get("namespace"), str):
        meta["namespace"] = ns(meta["namespace"])
    return NewItem(kind=kind, text=text, meta=ItemMeta(**meta), confidence=confidence)


def with_meta(new: NewItem, **meta: Any) -> NewItem:
    return replace(new, meta=replace(new.meta, **meta))


async def store_all(engine: MemoryEngine, items: Iterable[NewItem]) -> list[str]:
    return [(await engine.store(i)).id for i in items]


async def list_ids(engine: MemoryEngine, flt: MetaFilter | None = None) -> list[str]:
    """Every id `list` yields for the filter, following cursors."""
    return [i.id async for i in listed(engine, flt or MetaFilter())]


async def fetch_ids(
    engine: MemoryEngine, query: str, flt: MetaFilter | None = None, mode: FetchMode | None = None
) -> list[str]:
    result = await engine.fetch(FetchRequest(query=query, mode=mode, filter=flt or MetaFilter(), limit=100))
    return [h.item.id for h in result.hits]


def ill_typed(value: object) -> Any:
    """`value` with its type erased, so a test can hand the engine a wrong type on purpose."""
    return value


def ids(items: Iterable[MemoryItem]) -> list[str]:
    return [i.id for i in items]
