"""memory__recall's graph expansion: a hand-built graph of people and projects spread over the tiers,
walked from seed_name through the tools, with hop and via in each result's metadata."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from policy_world import EVE, put, tools
from tinymemory.api import Relation, format_rfc3339
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import MemoryPolicy

DAY0 = datetime(2024, 3, 1, tzinfo=UTC)
NOTHING = "qwxyzzy"  # a query word nothing contains, so only graph expansion answers


def day(n: float) -> datetime:
    return DAY0 + timedelta(days=n)


GRAPH: dict[str, tuple[str, str, tuple[str, str, str], float, float]] = {
    # label: (namespace, text, edge, confidence, day observed)
    "dana_atlas": (
        "workspace:acme/agent:helper",
        "Dana works on Project Atlas.",
        ("Dana", "works_on", "Project Atlas"),
        0.9,
        0,
    ),
    "dana_zephyr": (
        "workspace:acme/user:dana/agent:helper",
        "Dana advises Project Zephyr.",
        ("Dana", "advises", "Project Zephyr"),
        0.7,
        1,
    ),
    "eve_atlas": ("workspace:acme", "Eve leads Project Atlas.", ("Eve", "leads", "Project Atlas"), 0.8, 1),
    "atlas_apollo": (
        "workspace:acme",
        "Project Atlas is part of the Apollo Program.",
        ("Project Atlas", "part_of", "Apollo Program"),
        0.85,
        5,
    ),
    # another user's memory and another workspace's: never followed from Dana's conversation
    "eve_private": (
        "workspace:acme/user:eve",
        "Dana mentors Eve.",
        ("Dana", "mentors", "Eve"),
        1.0,
        0,
    ),
    "globex": (
        "workspace:globex",
        "Dana works on Project Hydra.",
        ("Dana", "works_on", "Project Hydra"),
        1.0,
        0,
    ),
}


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[SqliteEngine, dict[str, str]]]:
    engine = make_engine(tmp_path / "graph.db", embedder=None)
    ids: dict[str, str] = {}
    for label, (ns, text, edge, conf, n) in GRAPH.items():
        ids[label] = await put(engine, ns, text, conf, relations=(Relation(*edge),), observed_at=day(n))
    yield engine, ids
    await engine.close()


async def walk(
    engine: SqliteEngine, ids: dict[str, str], **args: Any
) -> list[tuple[str, int | None, str | None, str]]:
    out = await tools(engine).call("memory__recall", {"query": NOTHING, "seed_name": "Dana", **args})
    label = {v: k for k, v in ids.items()}
    return [
        (
            label.get(m["id"], m["id"]),
            m["metadata"].get("hop"),
            m["metadata"].get("via"),
            m["metadata"]["tier"],
        )
        for m in out["memories"]
    ]


async def test_one_hop(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    assert await walk(engine, ids) == [
        ("dana_atlas", 1, "Dana -works_on-> Project Atlas", "agent"),
        ("dana_zephyr", 1, "Dana -advises-> Project Zephyr", "user_for_agent"),
    ]


async def test_two_hops(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    assert await walk(engine, ids, max_hops=2) == [
        ("dana_atlas", 1, "Dana -works_on-> Project Atlas", "agent"),
        ("dana_zephyr", 1, "Dana -advises-> Project Zephyr", "user_for_agent"),
        ("atlas_apollo", 2, "Dana -works_on-> Project Atlas -part_of-> Apollo Program", "institutional"),
        ("eve_atlas", 2, "Dana -works_on-> Project Atlas <-leads- Eve", "institutional"),
    ]
    assert len(await walk(engine, ids, max_hops=2, limit=3)) == 3


async def test_relation_types_restrict_the_walk(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    assert await walk(engine, ids, max_hops=2, relation_types=["works_on"]) == [
        ("dana_atlas", 1, "Dana -works_on-> Project Atlas", "agent"),
    ]
    assert await walk(engine, ids, max_hops=2, relation_types=["works_on", "leads"]) == [
        ("dana_atlas", 1, "Dana -works_on-> Project Atlas", "agent"),
        ("eve_atlas", 2, "Dana -works_on-> Project Atlas <-leads- Eve", "institutional"),
    ]


async def test_as_of_before_a_relation_existed(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    before_apollo = format_rfc3339(day(3))
    got = await walk(engine, ids, max_hops=2, as_of=before_apollo)
    assert [g[0] for g in got] == ["dana_atlas", "dana_zephyr", "eve_atlas"]
    before_zephyr = format_rfc3339(day(0.5))
    assert [g[0] for g in await walk(engine, ids, as_of=before_zephyr)] == ["dana_atlas"]


async def test_graph_hits_found_by_the_search_too_keep_its_score(
    world: tuple[SqliteEngine, dict[str, str]],
) -> None:
    engine, ids = world
    out = await tools(engine).call("memory__recall", {"query": "Zephyr", "seed_name": "Dana"})
    by_id = {m["id"]: m["metadata"] for m in out["memories"]}
    assert by_id[ids["dana_zephyr"]]["hop"] == 1 and by_id[ids["dana_zephyr"]]["score"] > 0
    assert by_id[ids["dana_atlas"]]["score"] == 0.0  # reached by the graph only
    assert [m["id"] for m in out["memories"]].count(ids["dana_zephyr"]) == 1
    # without seed_name, no hop or via anywhere
    plain = await tools(engine).call("memory__recall", {"query": "Zephyr"})
    assert all("hop" not in m["metadata"] and "via" not in m["metadata"] for m in plain["memories"])


async def test_the_walk_stays_in_the_conversations_reach(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    everything = await walk(engine, ids, max_hops=2)
    assert "eve_private" not in {g[0] for g in everything} and "globex" not in {g[0] for g in everything}
    eve = await tools(engine, EVE).call(
        "memory__recall", {"query": NOTHING, "seed_name": "Dana", "max_hops": 2}
    )
    eve_ids = {m["id"] for m in eve["memories"]}
    assert ids["eve_private"] in eve_ids and ids["dana_zephyr"] not in eve_ids  # Dana's own stays hers


async def test_forgetting_a_memory_removes_its_edges(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    out = await tools(engine).call("memory__forget", {"memory_id": ids["dana_zephyr"]})
    assert out["status"] == "forgotten"
    assert [g[0] for g in await walk(engine, ids)] == ["dana_atlas"]


async def test_policy_relations_are_the_enum(world: tuple[SqliteEngine, dict[str, str]]) -> None:
    engine, ids = world
    policy = MemoryPolicy.from_dict(
        {"schema": {"types": [{"name": "general"}], "relations": [{"name": "leads"}]}}
    )
    t = tools(engine, policy=policy)
    out = await t.call(
        "memory__recall", {"query": NOTHING, "seed_name": "Project Atlas", "relation_types": ["leads"]}
    )
    assert [m["id"] for m in out["memories"]] == [ids["eve_atlas"]]
    assert out["memories"][0]["metadata"]["via"] == "Project Atlas <-leads- Eve"
