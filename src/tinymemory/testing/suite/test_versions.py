"""Bitemporal behaviour: supersession by `about`, as_of, soft delete (forget) and purge."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from tinymemory.api import (
    MAX_LIMIT,
    About,
    ExploreRequest,
    Facet,
    ForgetRequest,
    GetRequest,
    MemoryEngine,
    MetaFilter,
    PurgeRequest,
    Reach,
    RecallRequest,
    content_key,
    item_id,
)
from tinymemory.testing import SuiteClock

from .helpers import fetch_ids, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

CITY = About("user", "city")


async def test_versions_follow_the_observation_timeline(engine: MemoryEngine) -> None:
    """A version is valid from when it was observed; a correction closes the old one at its own time,
    so as_of answers "what did we believe then" for imported history too."""
    may = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    june = datetime(2023, 6, 1, 9, 0, tzinfo=UTC)
    old = await engine.store(item("the user lives in paris", about=CITY, observed_at=may))
    new = await engine.store(item("the user lives in rome", about=CITY, observed_at=june))
    got = {i.id: i for i in (await engine.get(GetRequest(ids=(old.id, new.id)))).items}
    assert got[old.id].valid_from == may and got[old.id].valid_to == june
    assert got[new.id].valid_from == june and got[new.id].valid_to is None
    assert await list_ids(engine, MetaFilter(as_of=datetime(2023, 5, 20, tzinfo=UTC))) == [old.id]
    assert await list_ids(engine, MetaFilter(as_of=datetime(2023, 5, 1, tzinfo=UTC))) == []
    assert await list_ids(engine, MetaFilter(as_of=june)) == [new.id]

    # a correction observed out of order still becomes the active version
    late = await engine.store(item("the user lives in oslo", about=CITY, observed_at=may))
    assert late.superseded == (new.id,)
    assert await list_ids(engine) == [late.id]


async def test_storing_the_same_about_supersedes_the_active_version(
    engine: MemoryEngine, clock: SuiteClock
) -> None:
    paris = item("the user lives in paris", about=CITY)
    old = await engine.store(paris)
    await clock.tick()
    between = clock.now()
    await clock.tick()
    new = await engine.store(item("the user lives in berlin", about=CITY))
    assert new.replayed is False
    assert new.superseded == (old.id,)

    got = {i.id: i for i in (await engine.get(GetRequest(ids=(old.id, new.id)))).items}
    assert set(got) == {old.id, new.id}, "get must return superseded versions too"
    assert got[old.id].valid_to is not None
    assert got[old.id].superseded_by == new.id
    assert not got[old.id].is_active
    assert got[new.id].valid_to is None
    assert got[new.id].supersedes == old.id
    closed_at = got[old.id].valid_to
    assert closed_at is not None
    assert got[old.id].valid_from <= between < closed_at <= got[new.id].valid_from

    assert await list_ids(engine) == [new.id]
    assert await fetch_ids(engine, "user lives") == [new.id]
    then = MetaFilter(as_of=between)
    assert await list_ids(engine, then) == [old.id]
    assert await fetch_ids(engine, "user lives", then) == [old.id]
    assert await list_ids(engine, MetaFilter(as_of=clock.now())) == [new.id]

    # re-storing the old text is a new version, not a replay of the closed one
    again = await engine.store(paris)
    assert again.replayed is False
    assert again.id not in (old.id, new.id)
    assert again.id == item_id(content_key(paris), 1)
    assert again.superseded == (new.id,)
    active = await list_ids(engine)
    assert active == [again.id]
    (current,) = (await engine.get(GetRequest(ids=(again.id,)))).items
    assert current.text == paris.text


async def test_supersede_false_keeps_both_versions_active(engine: MemoryEngine) -> None:
    a = await engine.store(item("likes tea", about=CITY))
    b = await engine.store(replace(item("likes coffee", about=CITY), supersede=False))
    assert b.superseded == ()
    assert set(await list_ids(engine)) == {a.id, b.id}


async def test_supersession_is_per_namespace(engine: MemoryEngine) -> None:
    a = await engine.store(item("lives in oslo", about=CITY, namespace="team:acme/user:u1"))
    b = await engine.store(item("lives in rome", about=CITY, namespace="team:acme/user:u2"))
    assert b.superseded == ()
    assert set(await list_ids(engine)) == {a.id, b.id}


async def test_forgotten_memory_is_hidden_from_every_read(engine: MemoryEngine, clock: SuiteClock) -> None:
    keep = await engine.store(item("the office plant is a fern", repo="r"))
    gone = await engine.store(item("the office plant is a cactus", repo="r"))
    await clock.tick()
    before_forget = clock.now()
    await clock.tick()
    result = await engine.forget(ForgetRequest(ids=(gone.id,)))
    assert result.forgotten == (gone.id,)
    assert result.skipped == ()

    assert await list_ids(engine) == [keep.id]
    assert await fetch_ids(engine, "office plant") == [keep.id]
    got = await engine.get(GetRequest(ids=(keep.id, gone.id)))
    assert [i.id for i in got.items] == [keep.id]
    assert got.missing == (gone.id,)
    explored = await engine.explore(ExploreRequest(facet=Facet.REPO))
    assert explored.total == 1
    assert [(b.value, b.count) for b in explored.buckets] == [("r", 1)]
    recalled = await engine.recall(RecallRequest(question="what is the office plant", limit=MAX_LIMIT))
    assert gone.id not in {c.id for c in recalled.citations}
    # as_of reads history, but forgotten memory is never read
    assert await list_ids(engine, MetaFilter(as_of=before_forget)) == [keep.id]


async def test_forgetting_twice_or_an_unknown_id_skips_it(engine: MemoryEngine) -> None:
    gone = await engine.store(item("to be forgotten"))
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    again = await engine.forget(ForgetRequest(ids=(gone.id, "m_ffffffffffffffffffffffff")))
    assert again.forgotten == ()
    assert set(again.skipped) == {gone.id, "m_ffffffffffffffffffffffff"}


async def test_forget_by_filter(engine: MemoryEngine) -> None:
    a = await engine.store(item("draft one", tags=("draft",)))
    b = await engine.store(item("draft two", tags=("draft",)))
    keep = await engine.store(item("final", tags=("final",)))
    result = await engine.forget(ForgetRequest(filter=MetaFilter(tags_any=("draft",))))
    assert set(result.forgotten) == {a.id, b.id}
    assert await list_ids(engine) == [keep.id]


async def test_restoring_forgotten_content_makes_a_new_version(engine: MemoryEngine) -> None:
    first = await engine.store(item("remember the milk"))
    await engine.forget(ForgetRequest(ids=(first.id,)))
    again = await engine.store(item("remember the milk"))
    assert again.replayed is False
    assert again.id != first.id
    assert again.id == item_id(content_key(item("remember the milk")), 1)
    assert await list_ids(engine) == [again.id]


async def test_purge_removes_forgotten_memory_only(engine: MemoryEngine) -> None:
    keep = await engine.store(item("keep me"))
    gone = await engine.store(item("purge me"))
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    assert (await engine.purge(PurgeRequest())).purged == 1
    assert (await engine.purge(PurgeRequest())).purged == 0
    got = await engine.get(GetRequest(ids=(keep.id, gone.id)))
    assert [i.id for i in got.items] == [keep.id]
    assert got.missing == (gone.id,)


async def test_purge_is_confined_to_its_reach(engine: MemoryEngine) -> None:
    mine = await engine.store(item("mine", namespace="team:acme"))
    theirs = await engine.store(item("theirs", namespace="team:globex"))
    await engine.forget(ForgetRequest(ids=(mine.id, theirs.id)))
    assert (await engine.purge(PurgeRequest(reach=Reach.subtree(ns("team:acme"))))).purged == 1
    assert (await engine.purge(PurgeRequest())).purged == 1


async def test_purge_forgotten_before(engine: MemoryEngine, clock: SuiteClock) -> None:
    early = await engine.store(item("forgotten early"))
    late = await engine.store(item("forgotten late"))
    await engine.forget(ForgetRequest(ids=(early.id,)))
    await clock.tick()
    cut = clock.now()
    await clock.tick()
    await engine.forget(ForgetRequest(ids=(late.id,)))
    assert (await engine.purge(PurgeRequest(forgotten_before=cut))).purged == 1
    assert (await engine.purge(PurgeRequest())).purged == 1
