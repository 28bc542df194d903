"""Adversarial tests of the four scoping invariants: two tenants, sibling agents, zero leaks.

acme/writer and acme/reader are sibling agents of tenant acme; globex/writer is another tenant. Each
test checks what the model can see through the tools against what the engine actually holds.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import make_engine
from tinymemory.api import (
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    TinyMemoryError,
    Unsupported,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import TOOL_NAMES, MemoryTools, ToolScope

ACME = Namespace.parse("team:acme")
ACME_WRITER = Namespace.parse("team:acme/agent:writer")
ACME_READER = Namespace.parse("team:acme/agent:reader")
GLOBEX_WRITER = Namespace.parse("team:globex/agent:writer")
SECRET = "quarterly revenue secret"


async def all_items(engine: SqliteEngine) -> dict[str, Namespace]:
    """Every active item in the file, whatever its namespace: the ground truth the tools must respect."""
    out: dict[str, Namespace] = {}
    cursor = None
    while True:
        page = await engine.list(ListRequest(filter=MetaFilter(), limit=1000, cursor=cursor))
        out.update({i.id: i.namespace for i in page.items})
        cursor = page.next_cursor
        if cursor is None:
            return out


class World:
    def __init__(self, engine: SqliteEngine) -> None:
        self.engine = engine
        self.acme_writer = MemoryTools(engine).placed_at(ACME_WRITER)
        self.acme_reader = MemoryTools(engine).placed_at(ACME_READER)
        self.globex = MemoryTools(engine).placed_at(GLOBEX_WRITER)
        self.ids: dict[str, str] = {}

    async def seed(self) -> None:
        for name, tools in (("acme_writer", self.acme_writer), ("acme_reader", self.acme_reader)):
            out = await tools.call(
                "memory_store", {"learning": {"text": f"{SECRET} of {name}"}, "tags": ["fin"]}
            )
            self.ids[name] = out["id"]
        out = await self.globex.call(
            "memory_store", {"learning": {"text": f"{SECRET} of globex"}, "tags": ["fin"]}
        )
        self.ids["globex"] = out["id"]
        team = await self.engine.store(
            NewItem(ItemKind.LEARNING, f"{SECRET} of the acme team", ItemMeta(ACME))
        )
        self.ids["acme_team"] = team.id
        root = await self.engine.store(NewItem(ItemKind.LEARNING, f"{SECRET} shared at the root", ItemMeta()))
        self.ids["root"] = root.id


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    engine = make_engine(tmp_path / "memory.db", embedder=None)
    w = World(engine)
    await w.seed()
    yield w
    await engine.close()


def ids_in(value: Any) -> set[str]:
    text = json.dumps(value)
    return {i for i in text.replace('"', " ").split() if i.startswith("m_")}


async def test_writes_land_at_place_with_tool_built_metadata(world: World) -> None:
    got = await world.engine.get(GetRequest(ids=tuple(world.ids.values())))
    by_id = {i.id: i for i in got.items}
    assert by_id[world.ids["acme_writer"]].namespace == ACME_WRITER
    assert by_id[world.ids["acme_reader"]].namespace == ACME_READER
    assert by_id[world.ids["globex"]].namespace == GLOBEX_WRITER
    assert by_id[world.ids["acme_reader"]].meta.source is not None
    assert by_id[world.ids["acme_reader"]].meta.source.id == "reader"


async def test_every_read_sees_only_the_reach(world: World) -> None:
    visible = {world.ids["acme_writer"], world.ids["acme_team"], world.ids["root"]}
    tools = world.acme_writer
    everything = {"filter": {"tags_any": ["fin"]}}
    list_out = await tools.call("memory_list", {"limit": 50})
    assert {i["id"] for i in list_out["items"]} == visible
    fetch_out = await tools.call("memory_fetch", {"query": SECRET, "limit": 50})
    assert {h["id"] for h in fetch_out["hits"]} == visible
    recall_out = await tools.call("memory_recall", {"question": f"what is the {SECRET}?", "limit": 50})
    assert ids_in(recall_out) <= visible and "globex" not in recall_out["answer"]
    explore_out = await tools.call("memory_explore", {"facet": "source_id"})
    assert explore_out["total"] == 3 and {b["value"] for b in explore_out["buckets"]} == {"writer"}
    tagged = await tools.call("memory_explore", {"facet": "tag", **everything})
    assert tagged["total"] == 1  # only the writer's own item is tagged: the sibling's is out of reach
    for out in (list_out, fetch_out, recall_out, explore_out):
        assert "reader" not in json.dumps(out) and "globex" not in json.dumps(out)


async def test_get_probing_other_ids_reveals_nothing(world: World) -> None:
    probe = [world.ids["globex"], world.ids["acme_reader"], "m_000000000000000000000000"]
    out = await world.acme_writer.call("memory_get", {"ids": probe})
    assert out == {"items": [], "missing": probe}


async def test_forget_by_ids_skips_everything_out_of_reach(world: World) -> None:
    before = await all_items(world.engine)
    out = await world.acme_writer.call(
        "memory_forget", {"ids": [world.ids["globex"], world.ids["acme_reader"]]}
    )
    assert out == {"forgotten": 0, "skipped": [world.ids["globex"], world.ids["acme_reader"]]}
    assert await all_items(world.engine) == before
    mixed = await world.acme_writer.call(
        "memory_forget", {"ids": [world.ids["globex"], world.ids["acme_writer"]]}
    )
    assert mixed == {"forgotten": 1, "skipped": [world.ids["globex"]]}
    after = await all_items(world.engine)
    assert set(before) - set(after) == {world.ids["acme_writer"]}


async def test_forget_by_filter_cannot_escape_the_reach(world: World) -> None:
    before = await all_items(world.engine)
    for escape in ({}, {"kinds": []}, {"tags_any": []}):
        with pytest.raises(InvalidRequest, match=r"memory_forget: `filter` must set at least one field"):
            await world.acme_writer.call("memory_forget", {"filter": escape})
    for escape in ({"filter": {"namespace": "team:globex"}}, {"filter": {"reach": "all"}}):
        with pytest.raises(InvalidRequest, match=r"is fixed by the host"):
            await world.acme_writer.call("memory_forget", escape)
    assert await all_items(world.engine) == before
    out = await world.acme_writer.call("memory_forget", {"filter": {"tags_any": ["fin"]}})
    assert out["forgotten"] == 1
    after = await all_items(world.engine)
    assert set(before) - set(after) == {world.ids["acme_writer"]}


async def test_exact_reach_confines_forget_to_the_agents_own_node(world: World) -> None:
    own_only = MemoryTools(world.engine).placed_at(ACME_WRITER).reach(Reach.exact(ACME_WRITER))
    out = await own_only.call("memory_forget", {"filter": {"kinds": ["learning"]}})
    assert out["forgotten"] == 1
    left = await all_items(world.engine)
    assert world.ids["acme_team"] in left and world.ids["root"] in left


async def test_team_auditor_reads_the_subtree_but_not_other_tenants(world: World) -> None:
    auditor = MemoryTools(world.engine).placed_at(ACME).reach(Reach.subtree(ACME)).read_only()
    assert auditor.names() == ["memory_recall", "memory_fetch", "memory_list", "memory_get", "memory_explore"]
    seen = {i["id"] for i in (await auditor.call("memory_list", {"limit": 50}))["items"]}
    assert seen == {world.ids["acme_writer"], world.ids["acme_reader"], world.ids["acme_team"]}


HOST_FIXED_ATTEMPTS: list[tuple[str, dict[str, Any], str]] = [
    ("memory_list", {"namespace": "team:globex"}, "namespace"),
    ("memory_list", {"reach": "subtree()"}, "reach"),
    ("memory_list", {"filter": {"namespace": "team:globex"}}, "filter.namespace"),
    ("memory_fetch", {"query": "x", "filter": {"reach": None}}, "filter.reach"),
    (
        "memory_recall",
        {"question": "x", "refers_to": {"from": "2024-01-01", "namespace": ""}},
        "refers_to.namespace",
    ),
    ("memory_get", {"ids": ["m_1"], "namespace": None}, "namespace"),
    ("memory_explore", {"facet": "tag", "filter": {"kinds": [{"reach": 1}]}}, "filter.kinds[0].reach"),
    ("memory_store", {"learning": {"text": "x", "namespace": "team:globex"}}, "learning.namespace"),
    ("memory_store", {"document": {"text": "x", "reach": "all"}}, "document.reach"),
    (
        "memory_store",
        {
            "conversation": {
                "turns": [{"role": "u", "text": "x"}, {"role": "a", "text": "y", "namespace": "r"}]
            }
        },
        "conversation.turns[1].namespace",
    ),
    ("memory_store", {"learning": {"text": "x"}, "tags": [{"namespace": "x"}]}, "tags[0].namespace"),
    ("memory_store", {"learning": {"text": "x"}, "extra": {"deep": [{"deeper": {"reach": 1}}]}}, "reach"),
    ("memory_forget", {"ids": ["m_1"], "reach": {"subtree": ""}}, "reach"),
]


@pytest.mark.parametrize(("tool", "args", "field"), HOST_FIXED_ATTEMPTS)
async def test_host_fixed_keys_refused_at_any_depth(
    world: World, tool: str, args: dict[str, Any], field: str
) -> None:
    before = await all_items(world.engine)
    with pytest.raises(InvalidRequest) as err:
        await world.acme_writer.call(tool, args)
    message = str(err.value)
    assert message.startswith(f"{tool}: `") and "fixed by the host" in message
    assert f"{field}`" in message
    assert await all_items(world.engine) == before


UNKNOWN_KEYS: list[tuple[str, dict[str, Any], str]] = [
    ("memory_list", {"tenant": "globex"}, "tenant"),
    ("memory_list", {"filter": {"as_of": "2024-01-01T00:00:00Z"}}, "filter.as_of"),
    ("memory_fetch", {"query": "x", "filter": {"min_confidence": 0.1}}, "filter.min_confidence"),
    ("memory_store", {"learning": {"text": "x", "about": {"kind": "a", "key": "b"}}}, "learning.about"),
    ("memory_store", {"document": {"text": "x", "parent": "m_1"}}, "document.parent"),
    (
        "memory_store",
        {"conversation": {"turns": [{"role": "u", "text": "x", "name": "bob"}]}},
        "conversation.turns[0].name",
    ),
    ("memory_store", {"learning": {"text": "x"}, "source": "user"}, "source"),
    ("memory_forget", {"ids": ["m_1"], "force": True}, "force"),
    ("memory_recall", {"question": "x", "refers_to": {"from": "2024-01-01", "tz": "UTC"}}, "refers_to.tz"),
]


@pytest.mark.parametrize(("tool", "args", "field"), UNKNOWN_KEYS)
async def test_unknown_keys_refused(world: World, tool: str, args: dict[str, Any], field: str) -> None:
    before = await all_items(world.engine)
    with pytest.raises(InvalidRequest, match=rf"^{tool}: `{re.escape(field)}` is not a known argument"):
        await world.acme_writer.call(tool, args)
    assert await all_items(world.engine) == before


async def test_read_only_scope_offers_and_runs_no_writes(world: World) -> None:
    before = await all_items(world.engine)
    auditor = MemoryTools.with_scope(world.engine, ToolScope(ACME, Reach.subtree(ACME), writes=False))
    assert not {"memory_store", "memory_forget"} & set(auditor.names())
    for tool, args in (
        ("memory_store", {"learning": {"text": "sneaky"}}),
        ("memory_forget", {"ids": [world.ids["acme_writer"]]}),
        ("memory_forget", {"filter": {"tags_any": ["fin"]}}),
    ):
        with pytest.raises(Unsupported, match=rf"^{tool}: these memory tools are read-only"):
            await auditor.call(tool, args)
    assert await all_items(world.engine) == before


def test_placed_at_resets_the_reach_and_builders_do_not_mutate(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "m.db", embedder=None)
    base = MemoryTools(engine)
    wide = base.reach(None).placed_at("team:acme/agent:writer")
    assert wide.scope == ToolScope(ACME_WRITER, Reach.of(ACME_WRITER), True)
    assert base.scope == ToolScope()
    wider = wide.reach(Reach.subtree(ACME))
    assert wider.scope.place == ACME_WRITER and wide.scope.reach == Reach.of(ACME_WRITER)
    assert wider.read_only().scope.writes is False and wider.scope.writes is True
    with pytest.raises(InvalidRequest, match="place"):
        base.placed_at("team:acme/nope")
    with pytest.raises(InvalidRequest, match="zone"):
        base.in_zone("Mars/Olympus")


# --- generated arguments ---------------------------------------------------------------------------

KNOWN_KEYS = [
    "question",
    "query",
    "mode",
    "filter",
    "limit",
    "cursor",
    "refers_to",
    "ids",
    "facet",
    "learning",
    "document",
    "conversation",
    "tags",
    "turns",
    "role",
    "text",
    "title",
    "from",
    "to",
    "kinds",
    "tags_any",
    "sources",
    "learning_kind",
    "confidence",
    "evidence",
    "observed_after",
    "namespace",
    "reach",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["learning", "fact", "tag", "lexical", "2024-05-08", "2024-05-08T00:00:00Z", "m_x", " "]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KNOWN_KEYS), st.text(max_size=8)), inner, max_size=4),
    ),
    max_leaves=20,
)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(KNOWN_KEYS), json_values, max_size=5),
    json_values,
    st.text(max_size=40),
)
tool_names = st.one_of(st.sampled_from(TOOL_NAMES), st.text(max_size=15))
short = st.one_of(st.text(max_size=12), st.sampled_from(["fact", "billing", "a", " "]))
plausible_filter = st.fixed_dictionaries(
    {},
    optional={
        "kinds": st.lists(st.sampled_from(["learning", "document", "conversation", "memo"]), max_size=2),
        "tags_any": st.lists(st.sampled_from(["a", "b", "", "fin"]), max_size=2),
        "sources": st.lists(st.sampled_from(["agent", "user"]), max_size=2),
        "thread_id": short,
        "agent_id": short,
        "observed_after": st.sampled_from(
            ["2024-05-08T00:00:00Z", "2024-05-08", "2999-01-01T00:00:00+02:00"]
        ),
        "observed_before": st.sampled_from(["2024-05-09T00:00:00Z", "soon", "2030-01-01T00:00:00Z"]),
        "namespace": st.sampled_from(["team:globex", ""]),
    },
)
refers = st.fixed_dictionaries(
    {"from": st.sampled_from(["2024-05-08", "0001-01-01", "9999-12-31", "2024-02-30", "x"])},
    optional={"to": st.sampled_from(["2024-05-09", "2024-05-01", "9999-12-31"])},
)
reading = {
    "filter": plausible_filter,
    "limit": st.integers(min_value=-1, max_value=60),
    "refers_to": refers,
    "cursor": st.sampled_from(["", "bogus", "eyJ4IjoxfQ"]),
}


def plausible_calls(ids: list[str]) -> st.SearchStrategy[tuple[str, Any]]:
    """Mostly well-formed calls, with one thing often wrong, so the success paths are exercised too."""
    some_ids = st.lists(st.sampled_from([*ids, "m_x", ""]), min_size=0, max_size=3)
    learning = st.fixed_dictionaries(
        {"text": short},
        optional={
            "learning_kind": st.sampled_from(["fact", "event", "memo"]),
            "confidence": st.floats(min_value=-0.5, max_value=1.5),
            "evidence": st.lists(short, max_size=2),
            "reach": st.just("all"),
        },
    )
    turn = st.fixed_dictionaries({"role": short, "text": short})
    shapes = st.one_of(
        st.fixed_dictionaries({"learning": learning}, optional={"tags": st.lists(short, max_size=3)}),
        st.fixed_dictionaries(
            {"document": st.fixed_dictionaries({"text": short}, optional={"title": short})}
        ),
        st.fixed_dictionaries({"conversation": st.fixed_dictionaries({"turns": st.lists(turn, max_size=3)})}),
    )
    return st.one_of(
        st.tuples(st.just("memory_store"), shapes),
        st.tuples(st.just("memory_fetch"), st.fixed_dictionaries({"query": short}, optional=reading)),
        st.tuples(st.just("memory_recall"), st.fixed_dictionaries({"question": short}, optional=reading)),
        st.tuples(st.just("memory_list"), st.fixed_dictionaries({}, optional=reading)),
        st.tuples(st.just("memory_get"), st.fixed_dictionaries({"ids": some_ids})),
        st.tuples(
            st.just("memory_explore"),
            st.fixed_dictionaries(
                {"facet": st.sampled_from(["tag", "kind", "agent", "namespace"])}, optional=reading
            ),
        ),
        st.tuples(
            st.just("memory_forget"),
            st.one_of(
                st.fixed_dictionaries({"ids": some_ids}),
                st.fixed_dictionaries({"filter": plausible_filter}),
            ),
        ),
    )


def has_host_fixed_key(value: Any) -> bool:
    if isinstance(value, dict):
        return any(k in ("namespace", "reach") or has_host_fixed_key(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_host_fixed_key(v) for v in value)
    return False


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_generated_calls_raise_only_contract_errors_and_never_write_on_error(
    tmp_path: Path, loop: asyncio.AbstractEventLoop, read_only: bool
) -> None:
    engine = make_engine(tmp_path / f"gen-{read_only}.db", embedder=None)
    tools = MemoryTools(engine).placed_at(ACME_WRITER)
    if read_only:
        tools = tools.read_only()
    run = loop.run_until_complete
    other = run(engine.store(NewItem(ItemKind.LEARNING, "globex private fact", ItemMeta(GLOBEX_WRITER))))

    mine = run(tools.call("memory_list", {}))["items"] if read_only else []
    calls = st.one_of(st.tuples(tool_names, arguments), plausible_calls([other.id, *[i["id"] for i in mine]]))
    outcomes: dict[str, int] = {"ok": 0, "error": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(call=calls)
    def check(call: tuple[str, Any]) -> None:
        name, args = call
        before = run(all_items(engine))
        try:
            out = run(tools.call(name, args))
        except TinyMemoryError:
            outcomes["error"] += 1
            assert run(all_items(engine)) == before, "an error must write nothing"
            return
        outcomes["ok"] += 1
        assert name in TOOL_NAMES
        assert not has_host_fixed_key(args)
        assert json.loads(json.dumps(out)) == out
        assert "globex" not in json.dumps(out)
        after = run(all_items(engine))
        assert other.id in after, "another tenant's memory must survive"
        for item_id, ns in after.items():
            if item_id not in before:
                assert ns == ACME_WRITER and not read_only

    try:
        check()
    finally:
        run(engine.close())
    assert outcomes["ok"] > 20 and outcomes["error"] > 20, outcomes
