"""store, store_many, get and list: identity, replay, round trip and order."""

from __future__ import annotations

from dataclasses import fields
from datetime import timedelta, timezone

import pytest

from tinymemory.api import (
    About,
    GetRequest,
    ItemKind,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Ref,
    Source,
    content_key,
    item_id,
)
from tinymemory.testing import SuiteClock

from .helpers import at, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

# The meta fields a stored item need not read back exactly as written (normalised or derived).
_NOT_ROUND_TRIPPED = {"tags", "observed_at", "event_from", "event_to", "relations"}


async def test_store_returns_the_content_derived_id(engine: MemoryEngine) -> None:
    new = item("the build uses make", namespace="team:acme")
    result = await engine.store(new)
    assert result.id == item_id(content_key(new))
    assert result.replayed is False
    assert result.superseded == ()


async def test_storing_the_same_memory_twice_is_a_replay(engine: MemoryEngine) -> None:
    new = item("prefers tabs over spaces", namespace="team:acme")
    first = await engine.store(new)
    second = await engine.store(new)
    assert second.id == first.id
    assert second.replayed is True
    assert await list_ids(engine) == [first.id]


async def test_replay_ignores_tags_and_whitespace(engine: MemoryEngine) -> None:
    first = await engine.store(item("prefers   dark mode", tags=("ui",), confidence=0.6))
    again = await engine.store(item(" prefers dark mode ", tags=("ui", "theme"), confidence=0.6))
    assert again.id == first.id
    assert again.replayed is True
    assert await list_ids(engine) == [first.id]


async def test_same_text_in_another_namespace_or_kind_is_a_new_memory(engine: MemoryEngine) -> None:
    a = await engine.store(item("standup at ten", namespace="team:acme"))
    b = await engine.store(item("standup at ten", namespace="team:globex"))
    c = await engine.store(item("standup at ten", ItemKind.DOCUMENT, namespace="team:acme"))
    assert len({a.id, b.id, c.id}) == 3
    assert not (b.replayed or c.replayed)


async def test_get_round_trips_every_meta_field(engine: MemoryEngine) -> None:
    cest = timezone(timedelta(hours=2))
    new = item(
        "deploys go out on thursdays",
        confidence=0.75,
        namespace="team:acme/agent:writer",
        source=Source("brain:docs", "doc-7"),
        workspace="ws1",
        folder="ops",
        file_path="ops/deploy.md",
        language="en",
        repo="acme/infra",
        url="https://example.org/deploy",
        thread_id="t-1",
        agent_id="writer",
        tool_call="call-9",
        tags=("ops", "deploy"),
        observed_at=at(minutes=5).astimezone(cest),
        learning_kind="procedure",
        evidence=("m_abc",),
        title="deploy day",
        summary="when deploys happen",
        purpose="planning",
        category="memory:work",
        about=About("process", "deploy-day"),
        parent="m_parentdoc",
        parent_title="ops handbook",
        refs=(Ref("image", "img/flow.png", media_type="image/png"),),
        event_from=at(days=1),
        event_to=at(days=2),
        extra=(("team", "platform"),),
    )
    stored = await engine.store(new)
    result = await engine.get(GetRequest(ids=(stored.id,)))
    assert result.missing == ()
    (got,) = result.items
    assert got.id == stored.id
    assert got.kind is ItemKind.LEARNING
    assert got.text == new.text
    assert got.confidence == 0.75
    for name in (f.name for f in fields(new.meta) if f.name not in _NOT_ROUND_TRIPPED):
        assert getattr(got.meta, name) == getattr(new.meta, name), name
    assert set(got.meta.tags) == {"ops", "deploy"}
    assert got.meta.observed_at == at(minutes=5)  # same instant; aware datetimes compare by instant
    assert got.meta.event_from == at(days=1)
    assert got.meta.event_to == at(days=2)
    assert got.valid_to is None
    assert got.forgotten_at is None
    assert got.is_active


async def test_observed_at_defaults_to_the_time_of_the_store(engine: MemoryEngine, clock: SuiteClock) -> None:
    before = clock.now() - timedelta(seconds=1)
    stored = await engine.store(item("no observed_at given"))
    after = clock.now() + timedelta(seconds=1)
    (got,) = (await engine.get(GetRequest(ids=(stored.id,)))).items
    assert got.meta.observed_at is not None
    assert got.meta.observed_at.utcoffset() is not None
    assert before <= got.meta.observed_at <= after


async def test_get_reports_unknown_ids_as_missing(engine: MemoryEngine) -> None:
    stored = await engine.store(item("known memory"))
    result = await engine.get(GetRequest(ids=(stored.id, "m_000000000000000000000000", "nonsense")))
    assert [i.id for i in result.items] == [stored.id]
    assert set(result.missing) == {"m_000000000000000000000000", "nonsense"}


async def test_store_many_stores_every_item_and_reports_replays(engine: MemoryEngine) -> None:
    existing = await engine.store(item("already here"))
    batch = [item("already here"), item("first new"), item("second new", ItemKind.DOCUMENT)]
    results = await engine.store_many(batch)
    assert [r.id for r in results] == [item_id(content_key(i)) for i in batch]
    assert [r.replayed for r in results] == [True, False, False]
    assert results[0].id == existing.id
    assert set(await list_ids(engine)) == {r.id for r in results}


async def test_store_many_of_nothing_is_a_no_op(engine: MemoryEngine) -> None:
    assert await engine.store_many([]) == []
    assert await list_ids(engine) == []


async def test_list_is_newest_first_then_by_id(engine: MemoryEngine) -> None:
    minutes = [3, 1, 4, 0, 2]
    stored = {m: (await engine.store(item(f"note {m}", observed_at=at(minutes=m)))).id for m in minutes}
    tied = [(await engine.store(item(f"tie {k}", observed_at=at(minutes=10)))).id for k in range(3)]
    listed = await list_ids(engine)
    assert listed[3:] == [stored[m] for m in sorted(minutes, reverse=True)]
    assert sorted(listed[:3]) == sorted(tied)
    # ties broken by id, in one consistent direction
    assert listed[:3] in (sorted(tied), sorted(tied, reverse=True))


async def test_list_respects_limit_and_signals_more(engine: MemoryEngine) -> None:
    for m in range(5):
        await engine.store(item(f"entry {m}", observed_at=at(minutes=m)))
    page = await engine.list(ListRequest(limit=2))
    assert len(page.items) == 2
    assert page.next_cursor is not None
    whole = await engine.list(ListRequest(limit=5))
    assert len(whole.items) == 5


async def test_list_filters_by_exact_namespace(engine: MemoryEngine) -> None:
    top = await engine.store(item("team wide", namespace="team:acme"))
    await engine.store(item("agent only", namespace="team:acme/agent:a"))
    assert await list_ids(engine, MetaFilter(namespace=ns("team:acme"))) == [top.id]
