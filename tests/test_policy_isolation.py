"""Adversarial isolation of the memory__ tools: two users of one agent in one workspace, and another
workspace. What each conversation can see or change is checked against what the file holds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import make_engine
from policy_world import DANA, EVE, GLOBEX_DANA, ground_truth, put, tools
from tinymemory.api import Namespace, TinyMemoryError
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import POLICY_TOOL_NAMES, Identity

SECRET = "orchid vault combination"


class World:
    def __init__(self, engine: SqliteEngine) -> None:
        self.engine = engine
        self.ids: dict[str, str] = {}

    async def seed(self) -> None:
        for label, identity in (("dana", DANA), ("eve", EVE), ("globex", GLOBEX_DANA)):
            out = await tools(self.engine, identity).call(
                "memory__remember", {"content": f"The {SECRET} of {label} is private."}
            )
            self.ids[label] = out["id"]
        eve_user = Identity("acme", "eve", verified=True)
        out = await tools(self.engine, eve_user).call(
            "memory__remember", {"content": f"{SECRET}: eve's own tier"}
        )
        self.ids["eve_user"] = out["id"]
        self.ids["agent"] = await put(
            self.engine, "workspace:acme/agent:helper", f"The {SECRET} policy is shared."
        )
        self.ids["workspace"] = await put(
            self.engine, "workspace:acme", f"The {SECRET} rules of the workspace."
        )
        self.ids["other_agent"] = await put(
            self.engine, "workspace:acme/agent:other", f"The {SECRET} of agent other."
        )
        self.ids["globex_ws"] = await put(self.engine, "workspace:globex", f"The {SECRET} of globex.")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    engine = make_engine(tmp_path / "memory.db", embedder=None)
    w = World(engine)
    await w.seed()
    yield w
    await engine.close()


def visible_to(w: World, who: str) -> set[str]:
    own = {w.ids["dana"]} if who == "dana" else {w.ids["eve"], w.ids["eve_user"]}  # Eve has a user tier too
    return own | {w.ids["agent"], w.ids["workspace"]}


@pytest.mark.parametrize("who", ["dana", "eve"])
async def test_each_user_recalls_and_lists_only_their_own_and_the_shared_tiers(
    world: World, who: str
) -> None:
    t = tools(world.engine, DANA if who == "dana" else EVE)
    recalled = await t.call("memory__recall", {"query": SECRET, "limit": 50})
    assert {m["id"] for m in recalled["memories"]} == visible_to(world, who)
    listed = await t.call("memory__list", {"limit": 50})
    assert {m["id"] for m in listed["memories"]} == visible_to(world, who)
    for scope in ("user", "user_for_agent", "agent", "institutional"):
        page = await t.call("memory__list", {"scope": scope, "limit": 50})
        assert {m["id"] for m in page["memories"]} <= visible_to(world, who)
    other = "eve" if who == "dana" else "dana"
    for out in (recalled, listed):
        text = json.dumps(out)
        assert f"of {other}" not in text and "globex" not in text and "agent other" not in text
        if who == "dana":
            assert "eve's own tier" not in text


async def test_open_never_reads_another_users_memory(world: World) -> None:
    dana = tools(world.engine, DANA)
    for probe in ("eve", "eve_user", "globex", "globex_ws", "other_agent"):
        out = await dana.call("memory__open", {"memory_id": world.ids[probe]})
        assert out["status"] == "not_found" and set(out) == {"status", "id", "message"}
    for shared in ("agent", "workspace", "dana"):
        assert (await dana.call("memory__open", {"memory_id": world.ids[shared]}))["status"] == "opened"
    eve = tools(world.engine, EVE)
    assert (await eve.call("memory__open", {"memory_id": world.ids["dana"]}))["status"] == "not_found"
    assert (await eve.call("memory__open", {"memory_id": world.ids["agent"]}))["status"] == "opened"


async def test_forget_never_touches_another_users_or_a_shared_memory(world: World) -> None:
    before = await ground_truth(world.engine)
    dana = tools(world.engine, DANA)
    for probe in ("eve", "eve_user", "globex", "globex_ws"):
        out = await dana.call("memory__forget", {"memory_id": world.ids[probe]})
        assert out["status"] == "not_found"
    for shared in ("agent", "workspace"):
        assert (await dana.call("memory__forget", {"memory_id": world.ids[shared]}))[
            "status"
        ] == "not_allowed"
    assert await ground_truth(world.engine) == before
    assert (await dana.call("memory__forget", {"memory_id": world.ids["dana"]}))["status"] == "forgotten"
    assert set(before) - set(await ground_truth(world.engine)) == {world.ids["dana"]}


async def test_another_workspace_is_invisible(world: World) -> None:
    globex = tools(world.engine, GLOBEX_DANA)
    recalled = await globex.call("memory__recall", {"query": SECRET, "limit": 50})
    assert {m["id"] for m in recalled["memories"]} == {world.ids["globex"], world.ids["globex_ws"]}
    assert (await globex.call("memory__open", {"memory_id": world.ids["dana"]}))["status"] == "not_found"


async def test_an_unverified_identity_gets_zero_tools(world: World) -> None:
    for identity in (Identity("acme", "dana", "helper"), Identity("acme"), Identity("acme", agent="helper")):
        t = tools(world.engine, identity)
        assert t.specs() == [] and t.names() == []
        with pytest.raises(TinyMemoryError):
            await t.call("memory__recall", {"query": SECRET})


# --- generated calls --------------------------------------------------------------------------------

KEYS = [
    "content",
    "type",
    "confidence",
    "category",
    "about_kind",
    "about_key",
    "purpose",
    "title",
    "summary",
    "share",
    "query",
    "types",
    "kinds",
    "limit",
    "min_confidence",
    "seed_name",
    "relation_types",
    "max_hops",
    "as_of",
    "memory_id",
    "scope",
    "cursor",
    "namespace",
    "reach",
    "user",
    "agent",
    "tier",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(
        ["general", "fact", "user", "agent", "2024-05-08T00:00:00Z", "m_x", " ", "Dana", "works_on"]
    ),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=4),
    ),
    max_leaves=20,
)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5), json_values, st.text(max_size=40)
)
names = st.one_of(st.sampled_from(POLICY_TOOL_NAMES), st.text(max_size=15), st.just("memory_store"))
short = st.one_of(st.text(max_size=12), st.sampled_from(["orchid", "vault", "a", " ", "Dana"]))


def plausible(ids: list[str]) -> st.SearchStrategy[tuple[str, Any]]:
    some_id = st.sampled_from([*ids, "m_000000000000000000000000", "garbage", ""])
    remember = st.fixed_dictionaries(
        {"content": short},
        optional={
            "type": st.sampled_from(["general", "fact", "memo"]),
            "confidence": st.floats(min_value=-0.5, max_value=1.5),
            "about_kind": short,
            "about_key": short,
            "share": st.booleans(),
            "title": short,
            "namespace": st.just("workspace:acme/user:eve"),
        },
    )
    recall = st.fixed_dictionaries(
        {"query": short},
        optional={
            "kinds": st.lists(st.sampled_from(["fact", "general", "Bad kind"]), max_size=2),
            "limit": st.integers(min_value=-1, max_value=60),
            "seed_name": st.sampled_from(["Dana", "", "Eve"]),
            "max_hops": st.integers(min_value=0, max_value=3),
            "as_of": st.sampled_from(["2024-05-08T00:00:00Z", "yesterday", "9999-12-31T23:59:59Z"]),
            "min_confidence": st.floats(min_value=-0.5, max_value=1.5),
        },
    )
    listing = st.fixed_dictionaries(
        {},
        optional={
            "scope": st.sampled_from(["all", "user", "agent", "institutional", "user_for_agent", "everyone"]),
            "type": st.sampled_from(["fact", "general", "x y"]),
            "limit": st.integers(min_value=-1, max_value=60),
            "cursor": st.sampled_from(["", "bogus", "eyJ4IjoxfQ"]),
        },
    )
    return st.one_of(
        st.tuples(st.just("memory__remember"), remember),
        st.tuples(st.just("memory__recall"), recall),
        st.tuples(st.just("memory__list"), listing),
        st.tuples(st.just("memory__open"), st.fixed_dictionaries({"memory_id": some_id})),
        st.tuples(st.just("memory__forget"), st.fixed_dictionaries({"memory_id": some_id})),
    )


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def test_generated_calls_raise_only_library_errors_and_never_write_on_error(
    tmp_path: Path, loop: asyncio.AbstractEventLoop
) -> None:
    engine = make_engine(tmp_path / "gen.db", embedder=None)
    run = loop.run_until_complete
    w = World(engine)
    run(w.seed())
    dana = tools(engine, DANA)
    own = {DANA.tiers.user_for_agent}
    protected = {k: v for k, v in w.ids.items() if k != "dana"}
    calls = st.one_of(st.tuples(names, arguments), plausible(list(w.ids.values())))
    outcomes = {"ok": 0, "error": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(call=calls)
    def check(call: tuple[str, Any]) -> None:
        name, args = call
        before = run(ground_truth(engine))
        try:
            out = run(dana.call(name, args))
        except TinyMemoryError:
            outcomes["error"] += 1
            assert run(ground_truth(engine)) == before, "an error must write nothing"
            return
        outcomes["ok"] += 1
        assert name in POLICY_TOOL_NAMES
        assert json.loads(json.dumps(out)) == out
        text = json.dumps(out)
        for label in ("of eve", "eve's own", "of globex", "agent other"):
            assert label not in text
        after = run(ground_truth(engine))
        for memory_id in protected.values():
            if memory_id in before:
                assert memory_id in after, "another user's or a shared memory must survive"
        for memory_id, (ns, _) in after.items():
            if memory_id not in before:
                assert ns in own and ns != Namespace.parse("workspace:acme")

    try:
        check()
    finally:
        run(engine.close())
    assert outcomes["ok"] > 20 and outcomes["error"] > 20, outcomes
