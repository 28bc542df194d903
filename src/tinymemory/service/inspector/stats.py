"""The dashboard's numbers: active memories per type and per observed day, week, month or year, each a
count query (the engine's `explore`) confined to the caller's own tiers, so no item is read and no
other tenant's memory is counted.

Bounded: one count per declared type, up to four probes to choose the bucket size, and one count per
bucket for each tier that holds anything (at most 4 tiers x 14 buckets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tinymemory.api import ExploreRequest, Facet, MemoryEngine, MetaFilter
from tinymemory.policy import Tier, Tiers

# The bucket sizes tried in turn, each with how many buckets it shows: the first whose window holds
# every memory wins; past the last, older memories are counted apart as `earlier`.
UNITS: tuple[tuple[str, int], ...] = (("day", 14), ("week", 12), ("month", 12), ("year", 10))
OTHER_TYPE = "other"


@dataclass(frozen=True, slots=True)
class Growth:
    """Memories observed per bucket, oldest bucket first, for each tier that holds any."""

    unit: str
    starts: tuple[datetime, ...]
    per_tier: Mapping[Tier, tuple[int, ...]]
    earlier: int  # memories observed before the first bucket (only with the largest unit)

    def labels(self) -> tuple[str, ...]:
        fmt = {"day": "%m-%d", "week": "%m-%d", "month": "%Y-%m", "year": "%Y"}[self.unit]
        return tuple(s.strftime(fmt) for s in self.starts)


async def count(engine: MemoryEngine, flt: MetaFilter) -> int:
    """How many active memories `flt` matches (a count query: no item is read)."""
    return (await engine.explore(ExploreRequest(Facet.KIND, flt, limit=1))).total


async def by_type(
    engine: MemoryEngine, tiers: Tiers, types: Sequence[str], total: int
) -> list[tuple[str, int]]:
    """The caller's memories per declared type, then the rest (documents, turns, undeclared types)."""
    reach = tiers.read_reach
    out = [(t, await count(engine, MetaFilter(reach=reach, learning_kinds=(t,)))) for t in types]
    rest = total - sum(n for _, n in out)
    return [*out, (OTHER_TYPE, rest)] if rest > 0 else out


def _floor(t: datetime, unit: str) -> datetime:
    day = datetime(t.year, t.month, t.day, tzinfo=UTC)
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "year":
        return day.replace(month=1, day=1)
    return day


def _back(t: datetime, unit: str, n: int) -> datetime:
    """`t` (a bucket start) moved `n` buckets back."""
    if unit == "day":
        return t - timedelta(days=n)
    if unit == "week":
        return t - timedelta(weeks=n)
    months = n if unit == "month" else 12 * n
    index = t.year * 12 + (t.month - 1) - months
    return t.replace(year=index // 12, month=index % 12 + 1)


def bucket_starts(now: datetime, unit: str, n: int) -> tuple[datetime, ...]:
    """The starts of the last `n` buckets of `unit` up to the one holding `now`, oldest first (UTC)."""
    last = _floor(now.astimezone(UTC), unit)
    return tuple(_back(last, unit, n - 1 - i) for i in range(n))


async def growth(engine: MemoryEngine, tiers: Tiers, counts: Mapping[Tier, int], now: datetime) -> Growth:
    """Per tier, the memories observed in each bucket; the newest bucket is open-ended, so a memory
    dated ahead of the clock still counts."""
    reach = tiers.read_reach
    unit, starts, earlier = UNITS[0][0], bucket_starts(now, *UNITS[0]), 0
    for unit, n in UNITS:
        starts = bucket_starts(now, unit, n)
        earlier = await count(engine, MetaFilter(reach=reach, observed_before=starts[0]))
        if earlier == 0:
            break
    ends: tuple[datetime | None, ...] = (*starts[1:], None)
    per_tier: dict[Tier, tuple[int, ...]] = {}
    for tier in tiers.present():
        if not counts.get(tier):
            continue
        tier_reach = tiers.reach_of((tier,))
        per_tier[tier] = tuple(
            [
                await count(engine, MetaFilter(reach=tier_reach, observed_after=s, observed_before=e))
                for s, e in zip(starts, ends, strict=True)
            ]
        )
    return Growth(unit, starts, per_tier, earlier)
