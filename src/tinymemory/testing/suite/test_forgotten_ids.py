"""GetResult.forgotten: an asked id that was forgotten within the reach is reported as a tombstone.

The lifecycle needs it so a forgotten learning is not derived again from turns said before the forget.
A tombstone carries the id and when it was forgotten, never any of the item's content; unknown ids,
ids outside the reach and purged items are only `missing`.
"""

from __future__ import annotations

from dataclasses import fields

import pytest

from tinymemory.api import (
    About,
    ForgetRequest,
    GetRequest,
    GetResult,
    MemoryEngine,
    MetaFilter,
    PurgeRequest,
    Reach,
    Tombstone,
)
from tinymemory.testing import SuiteClock

from .helpers import item, ns

UNKNOWN = "m_ffffffffffffffffffffffff"


@pytest.mark.asyncio
async def test_a_forgotten_id_is_missing_and_reported_with_when(
    engine: MemoryEngine, clock: SuiteClock
) -> None:
    gone = await engine.store(item("the locker code is 4411", namespace="team:acme"))
    kept = await engine.store(item("standup is at ten", namespace="team:acme"))
    before = clock.now()
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    after = clock.now()

    got = await engine.get(GetRequest(ids=(kept.id, gone.id, UNKNOWN)))
    assert [i.id for i in got.items] == [kept.id]
    assert got.missing == (gone.id, UNKNOWN), "forgotten ids stay in `missing` for older callers"
    assert [t.id for t in got.forgotten] == [gone.id]
    at = got.forgotten[0].forgotten_at
    assert at.tzinfo is not None and before <= at <= after


@pytest.mark.asyncio
async def test_a_tombstone_carries_no_content(engine: MemoryEngine) -> None:
    gone = await engine.store(item("my passport number is X123", namespace="team:acme"))
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    got = await engine.get(GetRequest(ids=(gone.id,)))
    assert [f.name for f in fields(Tombstone)] == ["id", "forgotten_at"]
    assert "passport" not in repr(got) and "X123" not in repr(got)


@pytest.mark.asyncio
async def test_nothing_is_reported_for_active_superseded_or_unknown_ids(engine: MemoryEngine) -> None:
    old = await engine.store(item("lives in Oslo", about=About("user", "city")))
    new = await engine.store(item("lives in Bergen", about=About("user", "city")))
    got = await engine.get(GetRequest(ids=(old.id, new.id, UNKNOWN)))
    assert [i.id for i in got.items] == [old.id, new.id]
    assert got.missing == (UNKNOWN,)
    assert got.forgotten == ()


@pytest.mark.asyncio
async def test_a_forgotten_id_outside_the_reach_is_not_reported(engine: MemoryEngine) -> None:
    """Out of reach, a forgotten id and an unknown one must look the same."""
    secret = await engine.store(item("the sibling's note", namespace="team:acme/agent:reviewer"))
    await engine.forget(ForgetRequest(ids=(secret.id,)))
    writer = Reach.of(ns("team:acme/agent:writer"))
    got = await engine.get(GetRequest(ids=(secret.id,), reach=writer))
    assert got.missing == (secret.id,)
    assert got.forgotten == ()
    inside = await engine.get(GetRequest(ids=(secret.id,), reach=Reach.subtree(ns("team:acme"))))
    assert [t.id for t in inside.forgotten] == [secret.id]


@pytest.mark.asyncio
async def test_forgotten_by_filter_is_reported_in_the_order_asked(engine: MemoryEngine) -> None:
    a = await engine.store(item("draft one", tags=("draft",)))
    b = await engine.store(item("draft two", tags=("draft",)))
    await engine.forget(ForgetRequest(filter=MetaFilter(tags_any=("draft",))))
    got = await engine.get(GetRequest(ids=(b.id, a.id)))
    assert [t.id for t in got.forgotten] == [b.id, a.id]
    assert got.missing == (b.id, a.id)


@pytest.mark.asyncio
async def test_purged_items_are_not_reported(engine: MemoryEngine) -> None:
    gone = await engine.store(item("an old address"))
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    await engine.purge(PurgeRequest())
    got = await engine.get(GetRequest(ids=(gone.id,)))
    assert got.missing == (gone.id,)
    assert got.forgotten == ()


def test_older_constructions_of_get_result_still_work() -> None:
    """An engine written before the field existed builds GetResult(items, missing)."""
    assert GetResult((), ("m_1",)).forgotten == ()
