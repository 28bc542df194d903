"""Reach confinement: two tenants with sibling agents; every read and forget stays inside its reach."""

from __future__ import annotations

import pytest

from tinymemory.api import (
    MAX_LIMIT,
    ExploreRequest,
    Facet,
    ForgetRequest,
    GetRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    Reach,
    RecallRequest,
)

from .helpers import fetch_ids, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

NODES = {
    "root": "",
    "acme": "team:acme",
    "acme_a": "team:acme/agent:a",
    "acme_b": "team:acme/agent:b",
    "globex": "team:globex",
    "globex_a": "team:globex/agent:a",
}

# Expected labels are written out by hand so the test does not lean on Reach.contains.
REACHES: dict[str, tuple[Reach | None, set[str]]] = {
    "of-agent": (Reach.of(ns("team:acme/agent:a")), {"root", "acme", "acme_a"}),
    "of-sibling": (Reach.of(ns("team:acme/agent:b")), {"root", "acme", "acme_b"}),
    "exact-team": (Reach.exact(ns("team:acme")), {"acme"}),
    "subtree-team": (Reach.subtree(ns("team:acme")), {"acme", "acme_a", "acme_b"}),
    "subtree-other-tenant": (Reach.subtree(ns("team:globex")), {"globex", "globex_a"}),
    "union": (
        Reach.union(Reach.of(ns("team:acme/agent:a")), Reach.exact(ns("team:globex/agent:a"))),
        {"root", "acme", "acme_a", "globex_a"},
    ),
    "everything": (None, set(NODES)),
}


async def _seed(engine: MemoryEngine) -> dict[str, str]:
    """One memory per node, all mentioning `zebra`; returns label -> id."""
    out = {}
    for label, path in NODES.items():
        stored = await engine.store(item(f"zebra crossing notes for {label}", namespace=path))
        out[label] = stored.id
    return out


@pytest.mark.parametrize("case", sorted(REACHES))
async def test_reads_stay_inside_the_reach(engine: MemoryEngine, case: str) -> None:
    reach, expected_labels = REACHES[case]
    by_label = await _seed(engine)
    expected = {by_label[label] for label in expected_labels}
    outside = set(by_label.values()) - expected

    got = await engine.get(GetRequest(ids=tuple(by_label.values()), reach=reach))
    assert {i.id for i in got.items} == expected
    assert set(got.missing) == outside

    flt = MetaFilter(reach=reach)
    assert set(await list_ids(engine, flt)) == expected
    assert set(await fetch_ids(engine, "zebra crossing", flt)) == expected
    explored = await engine.explore(ExploreRequest(facet=Facet.KIND, filter=flt))
    assert explored.total == len(expected)
    assert explored.missing == 0

    recalled = await engine.recall(
        RecallRequest(question="zebra crossing notes", filter=flt, limit=MAX_LIMIT)
    )
    cited = {c.id for c in recalled.citations}
    assert cited, "recall found nothing although every node holds a matching memory"
    assert cited <= expected


@pytest.mark.parametrize("case", sorted(REACHES))
async def test_forget_by_ids_skips_what_is_outside_the_reach(engine: MemoryEngine, case: str) -> None:
    reach, expected_labels = REACHES[case]
    by_label = await _seed(engine)
    expected = {by_label[label] for label in expected_labels}
    result = await engine.forget(ForgetRequest(ids=tuple(by_label.values()), reach=reach))
    assert set(result.forgotten) == expected
    assert set(result.skipped) == set(by_label.values()) - expected
    assert set(await list_ids(engine)) == set(by_label.values()) - expected


@pytest.mark.parametrize("where", ["request", "filter"])
@pytest.mark.parametrize("case", sorted(REACHES))
async def test_forget_by_filter_stays_inside_the_reach(engine: MemoryEngine, case: str, where: str) -> None:
    reach, expected_labels = REACHES[case]
    by_label = await _seed(engine)
    expected = {by_label[label] for label in expected_labels}
    if where == "request":
        request = ForgetRequest(filter=MetaFilter(kinds=(ItemKind.LEARNING,)), reach=reach)
    else:
        request = ForgetRequest(filter=MetaFilter(kinds=(ItemKind.LEARNING,), reach=reach))
    result = await engine.forget(request)
    assert set(result.forgotten) == expected
    assert set(await list_ids(engine)) == set(by_label.values()) - expected
