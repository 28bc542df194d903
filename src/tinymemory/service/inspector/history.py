"""What the inspector reads from the engine for one signed-in user: an item with its versions, the
newest items of a tier, and each tier's count. Every read is confined to the caller's read reach."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import (
    ExploreRequest,
    Facet,
    GetRequest,
    InvalidRequest,
    ListRequest,
    ListResult,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
)
from tinymemory.api.validate import MAX_ID_CHARS
from tinymemory.policy import Tier, Tiers
from tinymemory.policy.session import MAX_VERSIONS

PAGE_SIZE = 20


@dataclass(frozen=True, slots=True)
class Versions:
    """The asked item and its supersession chain, oldest first (every version the caller may see)."""

    item: MemoryItem
    chain: tuple[MemoryItem, ...]

    def active_at(self, instant: datetime) -> MemoryItem | None:
        """The version that was active at `instant`: valid from its `valid_from` until its `valid_to`
        (the bitemporal columns of `MemoryItem`), or None when none was."""
        for version in self.chain:
            if version.valid_from <= instant and (version.valid_to is None or instant < version.valid_to):
                return version
        return None


async def _one(engine: MemoryEngine, tiers: Tiers, memory_id: str) -> MemoryItem | None:
    """The item `memory_id` names when the caller can see it; None for anything else, malformed ids
    included, so every miss looks the same."""
    if not memory_id or len(memory_id) > MAX_ID_CHARS or not memory_id.isprintable():
        return None
    try:
        got = await engine.get(GetRequest(ids=(memory_id,), reach=tiers.read_reach))
    except InvalidRequest:
        return None
    return got.items[0] if got.items else None


async def versions(engine: MemoryEngine, tiers: Tiers, memory_id: str) -> Versions | None:
    """The item and its history: `supersedes` followed back, `superseded_by` forward."""
    item = await _one(engine, tiers, memory_id)
    if item is None:
        return None
    older: list[MemoryItem] = []
    newer: list[MemoryItem] = []
    seen = {item.id}
    for link, out in (("supersedes", older), ("superseded_by", newer)):
        step: MemoryItem | None = item
        while step is not None and len(seen) < MAX_VERSIONS:
            wanted = getattr(step, link)
            if wanted is None or wanted in seen:
                break
            seen.add(wanted)
            step = await _one(engine, tiers, wanted)
            if step is not None:
                out.append(step)
    return Versions(item, (*reversed(older), item, *newer))


async def newest(engine: MemoryEngine, tiers: Tiers, tier: Tier, cursor: str | None) -> ListResult:
    flt = MetaFilter(reach=tiers.reach_of((tier,)))
    return await engine.list(ListRequest(filter=flt, limit=PAGE_SIZE, cursor=cursor))


async def counts(engine: MemoryEngine, tiers: Tiers) -> dict[Tier, int]:
    """How many active items each of the caller's tiers holds."""
    out: dict[Tier, int] = {}
    for tier in tiers.present():
        explored = await engine.explore(
            ExploreRequest(Facet.KIND, MetaFilter(reach=tiers.reach_of((tier,))), limit=1)
        )
        out[tier] = explored.total
    return out
