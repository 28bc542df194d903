"""Every MetaFilter field alone (a matching item and some that do not match) via list, fetch and explore."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import pytest

from tinymemory.api import (
    About,
    ExploreRequest,
    Facet,
    FetchRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    NewItem,
    Reach,
    Source,
)
from tinymemory.testing import SuiteClock

from .helpers import at, fetch_ids, item, list_ids, ns, store_all


@dataclass(frozen=True)
class Case:
    flt: MetaFilter
    match: NewItem
    others: tuple[NewItem, ...]


def _text(n: str) -> str:
    return f"quokka record {n}"


def _scalar(field: str) -> Case:
    """A string field: `v1` matches; another value and an absent value do not."""
    one: dict[str, Any] = {field: "v1"}
    two: dict[str, Any] = {field: "v2"}
    return Case(
        MetaFilter(**one),
        item(_text("match"), **one),
        (item(_text("other"), **two), item(_text("absent"))),
    )


CASES: dict[str, Case] = {
    "namespace": Case(
        MetaFilter(namespace=ns("team:acme")),
        item(_text("match"), namespace="team:acme"),
        (item(_text("child"), namespace="team:acme/agent:a"), item(_text("root"))),
    ),
    "reach": Case(
        MetaFilter(reach=Reach.exact(ns("team:acme"))),
        item(_text("match"), namespace="team:acme"),
        (item(_text("child"), namespace="team:acme/agent:a"), item(_text("other"), namespace="team:globex")),
    ),
    "kinds": Case(
        MetaFilter(kinds=(ItemKind.DOCUMENT,)),
        item(_text("match"), ItemKind.DOCUMENT),
        (item(_text("learning")), item(_text("chunk"), ItemKind.CHUNK)),
    ),
    "sources": Case(
        MetaFilter(sources=("user",)),
        item(_text("match"), source=Source("user")),
        (item(_text("agent"), source=Source("agent")), item(_text("absent"))),
    ),
    "source_ids": Case(
        MetaFilter(source_ids=("s1",)),
        item(_text("match"), source=Source("import", "s1")),
        (item(_text("other"), source=Source("import", "s2")), item(_text("none"), source=Source("import"))),
    ),
    "tags_any": Case(
        MetaFilter(tags_any=("red", "blue")),
        item(_text("match"), tags=("blue", "x")),
        (item(_text("green"), tags=("green",)), item(_text("untagged"))),
    ),
    **{
        f: _scalar(f)
        for f in (
            "workspace",
            "folder",
            "file_path",
            "language",
            "repo",
            "url",
            "thread_id",
            "agent_id",
            "tool_call",
        )
    },
    "observed_after": Case(
        MetaFilter(observed_after=at(days=2)),
        item(_text("match"), observed_at=at(days=3)),
        (item(_text("early"), observed_at=at(days=1)),),
    ),
    "observed_before": Case(
        MetaFilter(observed_before=at(days=2)),
        item(_text("match"), observed_at=at(days=1)),
        (item(_text("late"), observed_at=at(days=3)),),
    ),
    "learning_kinds": Case(
        MetaFilter(learning_kinds=("preference",)),
        item(_text("match"), learning_kind="preference"),
        (item(_text("fact"), learning_kind="fact"), item(_text("absent"))),
    ),
    "categories": Case(
        MetaFilter(categories=("memory:health",)),
        item(_text("match"), category="memory:health"),
        (item(_text("work"), category="memory:work"), item(_text("absent"))),
    ),
    "min_confidence": Case(
        MetaFilter(min_confidence=0.7),
        item(_text("match"), confidence=0.9),
        (item(_text("low"), confidence=0.5),),
    ),
    "about": Case(
        MetaFilter(about=About("user", "name")),
        item(_text("match"), about=About("user", "name")),
        (item(_text("city"), about=About("user", "city")), item(_text("absent"))),
    ),
    "parent": Case(
        MetaFilter(parent="m_parent1"),
        item(_text("match"), ItemKind.CHUNK, parent="m_parent1"),
        (item(_text("other"), ItemKind.CHUNK, parent="m_parent2"), item(_text("orphan"), ItemKind.CHUNK)),
    ),
}


def test_every_filter_field_has_a_case() -> None:
    """A new MetaFilter field must come with a conformance case (as_of has its own test below)."""
    assert set(CASES) | {"as_of"} == {f.name for f in fields(MetaFilter)}


@pytest.mark.parametrize("field", sorted(CASES))
@pytest.mark.asyncio
async def test_filter_field_alone(engine: MemoryEngine, field: str) -> None:
    case = CASES[field]
    assert case.flt.set_fields() == (field,)
    match_id, *other_ids = await store_all(engine, (case.match, *case.others))
    assert set(await list_ids(engine)) == {match_id, *other_ids}
    assert await list_ids(engine, case.flt) == [match_id]
    assert await fetch_ids(engine, "quokka record", case.flt) == [match_id]
    explored = await engine.explore(ExploreRequest(facet=Facet.KIND, filter=case.flt))
    assert explored.total == 1


@pytest.mark.asyncio
async def test_observed_bounds_are_inclusive_after_and_exclusive_before(engine: MemoryEngine) -> None:
    edge = await engine.store(item(_text("edge"), observed_at=at(days=2)))
    assert await list_ids(engine, MetaFilter(observed_after=at(days=2))) == [edge.id]
    assert await list_ids(engine, MetaFilter(observed_before=at(days=2))) == []


@pytest.mark.asyncio
async def test_as_of_alone_reads_what_was_active_then(engine: MemoryEngine, clock: SuiteClock) -> None:
    early = await engine.store(item(_text("early")))
    await clock.tick()
    instant = clock.now()
    await clock.tick()
    await engine.store(item(_text("late")))
    flt = MetaFilter(as_of=instant)
    assert await list_ids(engine, flt) == [early.id]
    assert await fetch_ids(engine, "quokka record", flt) == [early.id]
    assert (await engine.explore(ExploreRequest(facet=Facet.KIND, filter=flt))).total == 1


@pytest.mark.asyncio
async def test_fields_combine_as_a_conjunction(engine: MemoryEngine) -> None:
    both = await engine.store(item(_text("both"), repo="r1", tags=("t",)))
    await engine.store(item(_text("repo only"), repo="r1"))
    await engine.store(item(_text("tag only"), tags=("t",)))
    assert await list_ids(engine, MetaFilter(repo="r1", tags_any=("t",))) == [both.id]


@pytest.mark.asyncio
async def test_filtered_fetch_finds_weak_matches_behind_many_strong_ones(engine: MemoryEngine) -> None:
    """A filter is a conjunction, not a post-filter of the top hits: weak matches must still come back."""
    await engine.store_many([item(f"quokka quokka quokka record strong {n}", repo="r2") for n in range(80)])
    weak_items = [
        item(f"a long note that mentions one quokka among many other words {n}", repo="r1", tags=("w",))
        for n in range(2)
    ]
    weak = await store_all(engine, weak_items)
    for flt in (
        MetaFilter(repo="r1"),
        MetaFilter(tags_any=("w",)),
        MetaFilter(min_confidence=None, repo="r1"),
    ):
        assert set(await fetch_ids(engine, "quokka", flt)) == set(weak)
    page = await engine.fetch(FetchRequest(query="quokka", filter=MetaFilter(tags_any=("w",)), limit=1))
    assert len(page.hits) == 1 and page.hits[0].item.id in weak
