"""Relations and graph expansion: a small hand-built graph of people and projects, walked one and two
hops, with and without relation types, in the past (as_of), after a forget, and never across tenants."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from tinymemory.api import (
    About,
    ExpandRequest,
    ExpandResult,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    PurgeRequest,
    Reach,
    Relation,
)

from .helpers import at, ill_typed, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

ACME = "team:acme"
GLOBEX = "team:globex"
ACME_ONLY = MetaFilter(reach=Reach.exact(ns(ACME)))
LEAD = About("role", "atlas lead")


def fact(text: str, *edges: tuple[str, str, str], conf: float, day: float, **meta: Any) -> Any:
    meta.setdefault("namespace", ACME)
    return item(
        text,
        confidence=conf,
        observed_at=at(day),
        relations=tuple(Relation(*e) for e in edges),
        **meta,
    )


GRAPH = {
    "dana_atlas": fact("Dana works on Project Atlas", ("Dana", "works_on", "Project Atlas"), conf=0.9, day=0),
    "eve_atlas": fact(
        "Eve leads Project Atlas", ("Eve", "leads", "Project Atlas"), conf=0.8, day=1, about=LEAD
    ),
    "dana_zephyr": fact(
        "Dana advises Project Zephyr", ("Dana", "advises", "Project Zephyr"), conf=0.7, day=2
    ),
    "atlas_apollo": fact(
        "Project Atlas is part of the Apollo Program",
        ("Project Atlas", "part_of", "Apollo Program"),
        conf=0.8,
        day=3,
    ),
    "hana_atlas": fact("Hana works on Project Atlas", ("Hana", "works_on", "Project Atlas"), conf=0.5, day=4),
    "gus_zephyr": fact("Gus works on Project Zephyr", ("Gus", "works_on", "Project Zephyr"), conf=0.6, day=2),
    "eve_frank": fact("Eve reports to Frank", ("Eve", "reports_to", "Frank"), conf=0.9, day=1),
    # another tenant's memories about the same names: never followed from acme
    "globex_dana": fact(
        "Dana works on Project Hydra",
        ("Dana", "works_on", "Project Hydra"),
        conf=1.0,
        day=0,
        namespace=GLOBEX,
    ),
    "globex_atlas": fact(
        "Mallory leads Project Atlas",
        ("Mallory", "leads", "Project Atlas"),
        conf=1.0,
        day=0,
        namespace=GLOBEX,
    ),
}


async def build(engine: MemoryEngine) -> dict[str, str]:
    """Store the graph; return label -> id."""
    return {label: (await engine.store(new)).id for label, new in GRAPH.items()}


def rows(result: ExpandResult, names: dict[str, str]) -> list[tuple[int, str, str]]:
    """(hop, label, via) per hit, labels instead of ids for readable failures."""
    label = {v: k for k, v in names.items()}
    return [(h.hop, label.get(h.item.id, h.item.id), h.via) for h in result.hits]


async def expand(engine: MemoryEngine, seed: str, **kw: Any) -> ExpandResult:
    kw.setdefault("filter", ACME_ONLY)
    return await engine.expand(ExpandRequest(seed_name=seed, **kw))


async def test_one_hop_follows_edges_in_both_directions_best_first(engine: MemoryEngine) -> None:
    g = await build(engine)
    assert rows(await expand(engine, "Dana"), g) == [
        (1, "dana_atlas", "Dana -works_on-> Project Atlas"),
        (1, "dana_zephyr", "Dana -advises-> Project Zephyr"),
    ]
    # the seed as the object: walked backwards, the stored direction kept in the arrow; confidence
    # first, then the newer observation, then the id
    assert rows(await expand(engine, "Project Atlas"), g) == [
        (1, "dana_atlas", "Project Atlas <-works_on- Dana"),
        (1, "atlas_apollo", "Project Atlas -part_of-> Apollo Program"),
        (1, "eve_atlas", "Project Atlas <-leads- Eve"),
        (1, "hana_atlas", "Project Atlas <-works_on- Hana"),
    ]


async def test_two_hops_reach_the_neighbours_neighbours_and_no_further(engine: MemoryEngine) -> None:
    g = await build(engine)
    got = await expand(engine, "Dana", max_hops=2)
    assert rows(got, g) == [
        (1, "dana_atlas", "Dana -works_on-> Project Atlas"),
        (1, "dana_zephyr", "Dana -advises-> Project Zephyr"),
        (2, "atlas_apollo", "Dana -works_on-> Project Atlas -part_of-> Apollo Program"),
        (2, "eve_atlas", "Dana -works_on-> Project Atlas <-leads- Eve"),
        (2, "gus_zephyr", "Dana -advises-> Project Zephyr <-works_on- Gus"),
        (2, "hana_atlas", "Dana -works_on-> Project Atlas <-works_on- Hana"),
    ]  # Frank is three hops away
    assert got.hits[2].relation == Relation("Project Atlas", "part_of", "Apollo Program")
    assert got.hits[2].item.text == "Project Atlas is part of the Apollo Program"
    # the limit applies to the whole walk, hop 1 first
    limited = await expand(engine, "Dana", max_hops=2, limit=3)
    assert rows(limited, g) == rows(got, g)[:3]


async def test_relation_types_restrict_every_hop(engine: MemoryEngine) -> None:
    g = await build(engine)
    assert rows(await expand(engine, "Dana", max_hops=2, relation_types=("works_on",)), g) == [
        (1, "dana_atlas", "Dana -works_on-> Project Atlas"),
        (2, "hana_atlas", "Dana -works_on-> Project Atlas <-works_on- Hana"),
    ]
    assert rows(await expand(engine, "Project Atlas", relation_types=("leads", "part_of")), g) == [
        (1, "atlas_apollo", "Project Atlas -part_of-> Apollo Program"),
        (1, "eve_atlas", "Project Atlas <-leads- Eve"),
    ]
    assert (await expand(engine, "Dana", relation_types=("owns",))).hits == ()


async def test_seed_names_match_across_case_and_spacing(engine: MemoryEngine) -> None:
    g = await build(engine)
    want = rows(await expand(engine, "Project Atlas"), g)
    assert rows(await expand(engine, "  project   ATLAS "), g) == want
    assert (await expand(engine, "Project Atlantis")).hits == ()


async def test_the_filter_narrows_which_memories_are_walked(engine: MemoryEngine) -> None:
    g = await build(engine)
    sure = replace(ACME_ONLY, min_confidence=0.75)
    assert rows(await expand(engine, "Dana", max_hops=2, filter=sure), g) == [
        (1, "dana_atlas", "Dana -works_on-> Project Atlas"),
        (2, "atlas_apollo", "Dana -works_on-> Project Atlas -part_of-> Apollo Program"),
        (2, "eve_atlas", "Dana -works_on-> Project Atlas <-leads- Eve"),
    ]  # Zephyr's edge is below the threshold, so Gus is not reached through it
    chunks = replace(ACME_ONLY, kinds=(ItemKind.CHUNK,))
    assert (await expand(engine, "Dana", filter=chunks)).hits == ()


async def test_another_tenants_relations_are_never_followed(engine: MemoryEngine) -> None:
    g = await build(engine)
    # from acme: globex's Dana edge and its Mallory edge (into Project Atlas, hop 2) stay unseen
    acme = await expand(engine, "Dana", max_hops=2)
    assert not {"globex_dana", "globex_atlas"} & {label for _, label, _ in rows(acme, g)}
    assert "Mallory" not in " ".join(h.via for h in acme.hits)
    agent = MetaFilter(reach=Reach.of(ns("team:acme/agent:writer")))  # an agent sees its team too
    assert rows(await expand(engine, "Dana", max_hops=2, filter=agent), g) == rows(acme, g)
    globex = MetaFilter(reach=Reach.exact(ns(GLOBEX)))
    assert rows(await expand(engine, "Dana", max_hops=2, filter=globex), g) == [
        (1, "globex_dana", "Dana -works_on-> Project Hydra"),
    ]
    nobody = MetaFilter(reach=Reach.exact(ns("team:initech")))
    assert (await expand(engine, "Dana", max_hops=2, filter=nobody)).hits == ()


async def test_as_of_walks_the_graph_as_it_was_believed_then(engine: MemoryEngine) -> None:
    g = await build(engine)
    ivan = await engine.store(
        fact("Ivan leads Project Atlas", ("Ivan", "leads", "Project Atlas"), conf=0.8, day=5, about=LEAD)
    )
    g["ivan_atlas"] = ivan.id
    assert ivan.superseded == (g["eve_atlas"],)
    leads = ("leads",)
    assert rows(await expand(engine, "Project Atlas", relation_types=leads), g) == [
        (1, "ivan_atlas", "Project Atlas <-leads- Ivan"),
    ]
    then = replace(ACME_ONLY, as_of=at(4.5))
    assert rows(await expand(engine, "Project Atlas", relation_types=leads, filter=then), g) == [
        (1, "eve_atlas", "Project Atlas <-leads- Eve"),
    ]
    # before Hana's memory was recorded her edge did not exist; before day 0 nothing did
    early = replace(ACME_ONLY, as_of=at(3.5))
    assert "hana_atlas" not in {
        label for _, label, _ in rows(await expand(engine, "Dana", max_hops=2, filter=early), g)
    }
    assert "hana_atlas" in {label for _, label, _ in rows(await expand(engine, "Dana", max_hops=2), g)}
    assert (await expand(engine, "Dana", filter=replace(ACME_ONLY, as_of=at(-1)))).hits == ()


async def test_forgetting_a_memory_removes_its_relations_from_every_walk(engine: MemoryEngine) -> None:
    g = await build(engine)
    await engine.forget(ForgetRequest(ids=(g["dana_atlas"],)))
    assert rows(await expand(engine, "Dana", max_hops=2), g) == [
        (1, "dana_zephyr", "Dana -advises-> Project Zephyr"),
        (2, "gus_zephyr", "Dana -advises-> Project Zephyr <-works_on- Gus"),
    ]
    assert "dana_atlas" not in {label for _, label, _ in rows(await expand(engine, "Project Atlas"), g)}
    # as_of never brings a forgotten memory back
    then = replace(ACME_ONLY, as_of=at(4.5))
    assert "dana_atlas" not in {
        label for _, label, _ in rows(await expand(engine, "Dana", max_hops=2, filter=then), g)
    }
    await engine.purge(PurgeRequest())
    assert [h.relation.object for h in (await expand(engine, "Dana")).hits] == ["Project Zephyr"]


async def test_each_memory_is_reported_once_at_its_first_hop(engine: MemoryEngine) -> None:
    both = await engine.store(
        fact(
            "Kim founded Orbit and leads it; Orbit owns Lab Nine",
            ("Kim", "founded", "Orbit"),
            ("Kim", "leads", "Orbit"),
            ("Orbit", "owns", "Lab Nine"),
            conf=0.9,
            day=0,
        )
    )
    got = await expand(engine, "Kim", max_hops=2)
    assert [(h.hop, h.item.id, h.via) for h in got.hits] == [(1, both.id, "Kim -founded-> Orbit")]


async def test_relations_round_trip_and_are_not_identity(engine: MemoryEngine) -> None:
    edges = (
        Relation(" Dana ", "works_on", "Project Atlas"),
        Relation("dana", "works_on", "project  atlas"),  # the same edge by its keys: kept once
        Relation("Dana", "reports_to", "Eve"),
    )
    first = await engine.store(item("Dana is on Atlas under Eve", namespace=ACME, relations=edges))
    (got,) = (await engine.get(GetRequest(ids=(first.id,)))).items
    assert got.meta.relations == (
        Relation("Dana", "works_on", "Project Atlas"),
        Relation("Dana", "reports_to", "Eve"),
    )
    # the same content without relations (or with the same ones) is a replay that keeps them
    again = await engine.store(item("Dana is on Atlas under Eve", namespace=ACME))
    assert (again.id, again.replayed) == (first.id, True)
    same = await engine.store(item("Dana is on Atlas under Eve", namespace=ACME, relations=edges[1:]))
    assert (same.id, same.replayed) == (first.id, True)
    # a correction of another field carries the relations over to the new version
    sure = await engine.store(item("Dana is on Atlas under Eve", namespace=ACME, confidence=0.95))
    assert sure.superseded == (first.id,)
    (now,) = (await engine.get(GetRequest(ids=(sure.id,)))).items
    assert now.meta.relations == got.meta.relations
    assert [h.item.id for h in (await expand(engine, "Dana")).hits] == [sure.id]


async def test_new_relations_for_the_same_content_are_a_new_version(engine: MemoryEngine) -> None:
    old = await engine.store(
        item(
            "Dana moved teams",
            namespace=ACME,
            observed_at=at(0),
            relations=(Relation("Dana", "works_on", "Atlas"),),
        )
    )
    new = await engine.store(
        item(
            "Dana moved teams",
            namespace=ACME,
            observed_at=at(1),
            relations=(Relation("Dana", "works_on", "Zephyr"),),
        )
    )
    assert new.replayed is False and new.superseded == (old.id,)
    assert [h.relation.object for h in (await expand(engine, "Dana")).hits] == ["Zephyr"]
    then = replace(ACME_ONLY, as_of=at(0.5))
    assert [h.relation.object for h in (await expand(engine, "Dana", filter=then)).hits] == ["Atlas"]


Call = Callable[[MemoryEngine], Awaitable[Any]]


def _expand(**kw: Any) -> Call:
    kw.setdefault("seed_name", "Dana")
    return lambda e: e.expand(ExpandRequest(**kw))


def _store(*edges: Any) -> Call:
    return lambda e: e.store(item("Dana works on Atlas", namespace=ACME, relations=edges))


BAD: dict[str, tuple[Call, str]] = {
    "empty seed": (_expand(seed_name=""), "seed_name"),
    "blank seed": (_expand(seed_name="  \n"), "seed_name"),
    "seed not a string": (_expand(seed_name=7), "seed_name"),
    "seed too long": (_expand(seed_name="x" * 257), "seed_name"),
    "seed lone surrogate": (_expand(seed_name="Dana\ud800"), "seed_name"),
    "relation type with spaces": (_expand(relation_types=("works on",)), "relation_types[0]"),
    "relation type uppercase": (_expand(relation_types=("leads", "Works_On")), "relation_types[1]"),
    "relation type empty": (_expand(relation_types=("",)), "relation_types[0]"),
    "relation type not a string": (_expand(relation_types=(3,)), "relation_types[0]"),
    "relation types one string": (_expand(relation_types="works_on"), "relation_types"),
    "max_hops zero": (_expand(max_hops=0), "max_hops"),
    "max_hops three": (_expand(max_hops=3), "max_hops"),
    "max_hops bool": (_expand(max_hops=True), "max_hops"),
    "max_hops string": (_expand(max_hops="2"), "max_hops"),
    "limit zero": (_expand(limit=0), "limit"),
    "bad filter": (_expand(filter=MetaFilter(min_confidence=2.0)), "filter.min_confidence"),
    "not a request": (lambda e: e.expand(ill_typed("Dana")), "request"),
    "relations not a tuple": (
        lambda e: e.store(item("x", relations=[Relation("a", "b", "c")])),
        "meta.relations",
    ),
    "relation not a Relation": (_store(("Dana", "works_on", "Atlas")), "meta.relations[0]"),
    "relation blank subject": (_store(Relation(" ", "works_on", "Atlas")), "meta.relations[0].subject"),
    "relation bad type": (
        _store(Relation("Dana", "works_on", "Atlas"), Relation("Dana", "Works-On", "Atlas")),
        "meta.relations[1].type",
    ),
    "relation object too long": (_store(Relation("Dana", "works_on", "A" * 257)), "meta.relations[0].object"),
    "relation object not a string": (
        _store(Relation("Dana", "works_on", ill_typed(None))),
        "meta.relations[0].object",
    ),
    "relation surrogate": (_store(Relation("D\udc80", "works_on", "Atlas")), "meta.relations[0].subject"),
    "too many relations": (
        _store(*(Relation("Dana", "works_on", f"P{i}") for i in range(257))),
        "meta.relations",
    ),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
async def test_bad_graph_input_is_refused_naming_the_field(engine: MemoryEngine, case: str) -> None:
    call, field = BAD[case]
    op = "store" if field.startswith("meta.") else "expand"
    with pytest.raises(InvalidRequest) as err:
        await call(engine)
    message = str(err.value)
    assert message.startswith(f"{op}: `{field}` "), message
    assert await list_ids(engine) == []
