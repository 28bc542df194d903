"""The shared-write gate, rule by rule (seed 003, "Sharing a memory with the agent"), over a real SQLite
file: the memory__ tools queue shares, the job weighs them, other users read what it published."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory.api import GetRequest, ListRequest, MetaFilter, Namespace, Reach, utcnow
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import Identity, MemoryPolicy, PolicyTools
from tinymemory.policy.gate import GateJob, gate_matcher, gate_status, queued_pairs

WS, AGENT = "acme", "support"
FACT = "The Berlin office closes at 6 pm on Fridays."
PARAPHRASE = "On Fridays the Berlin office closes at 18:00."
OTHER = "Refunds are accepted within 30 days of purchase."
GATE_ON = {"gate": {"enabled": True, "minDistinctSubjects": 2, "window": "7d"}}


def policy(**gate: Any) -> MemoryPolicy:
    return MemoryPolicy.from_dict({"gate": {**GATE_ON["gate"], **gate}})


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    async with make_engine(tmp_path / "gate.db") as eng:
        yield eng


class World:
    def __init__(self, engine: SqliteEngine, pol: MemoryPolicy) -> None:
        self.engine, self.policy = engine, pol
        self.clock = utcnow()

    def tools(self, user: str, agent: str | None = AGENT) -> PolicyTools:
        return PolicyTools.for_identity(self.engine, Identity(WS, user, agent, verified=True), self.policy)

    async def share(self, user: str, text: str, agent: str | None = AGENT) -> dict[str, Any]:
        return await self.tools(user, agent).call("memory__remember", {"content": text, "share": True})

    async def run(self, later: timedelta = timedelta(0)) -> Any:
        at = self.clock + later
        return await GateJob(self.engine, lambda _: self.policy, gate_matcher(), now=lambda: at).run()

    async def shared(self) -> list[Any]:
        node = Namespace.of(("workspace", WS), ("agent", AGENT))
        flt = MetaFilter(reach=Reach.exact(node))
        return list((await self.engine.list(ListRequest(filter=flt, limit=100))).items)

    async def recall(self, user: str, query: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = (await self.tools(user).call("memory__recall", {"query": query}))[
            "memories"
        ]
        return found


async def test_one_sharer_is_held_and_no_one_else_sees_it(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    out = await world.share("alice", FACT)
    assert out["share"] == "queued" and out["tier"] == "user_for_agent"
    report = await world.run()
    assert (report.held, report.published) == (1, 0)
    assert await world.shared() == []
    assert await world.recall("carol", "Berlin office Fridays") == []


async def test_two_distinct_sharers_publish_exactly_once(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    await world.share("alice", FACT)
    await world.share("bob", PARAPHRASE)
    first = await world.run()
    assert first.published == 1
    again = await world.run()
    assert again.published == 0 and again.merged == 0
    shared = await world.shared()
    assert len(shared) == 1
    hits = await world.recall("carol", "when does the Berlin office close on Friday?")
    assert hits and hits[0]["id"] == shared[0].id and hits[0]["metadata"]["tier"] == "agent"


async def test_a_candidate_no_one_corroborates_in_the_window_is_rejected(engine: SqliteEngine) -> None:
    world = World(engine, policy(window="1d"))
    await world.share("alice", FACT)
    report = await world.run(timedelta(days=1, seconds=1))
    assert report.rejected == 1
    await world.share("bob", PARAPHRASE)  # too late to corroborate alice's: she no longer counts
    assert (await world.run(timedelta(days=1, seconds=2))).published == 0
    assert await world.shared() == []


async def test_a_later_share_of_a_published_fact_is_merged_as_evidence(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    await world.share("alice", FACT)
    await world.share("bob", PARAPHRASE)
    await world.run()
    await world.share("dave", "The Berlin office closes at 6pm on Friday.")
    report = await world.run()
    assert (report.merged, report.published) == (1, 0)
    shared = await world.shared()
    assert len(shared) == 1 and "3 users" in (shared[0].meta.purpose or "")


async def test_user_shares_switched_off_keep_the_memory_private(engine: SqliteEngine) -> None:
    world = World(engine, policy(accept={"userShares": False}))
    out = await world.share("alice", FACT)
    assert (out["share"], out["share_reason"]) == ("kept_private", "user_shares_off")
    assert await queued_pairs(engine) == []
    assert [m["id"] for m in await world.recall("alice", "Berlin office")] == [out["id"]]


async def test_no_agent_means_private(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    out = await world.share("alice", FACT, agent=None)
    assert (out["share"], out["share_reason"]) == ("kept_private", "no_agent")
    assert await queued_pairs(engine) == []


async def test_without_a_gate_a_share_stays_private(engine: SqliteEngine) -> None:
    world = World(engine, MemoryPolicy.default())
    out = await world.share("alice", FACT)
    assert (out["share"], out["share_reason"]) == ("kept_private", "no_gate")


async def test_the_same_user_twice_counts_once(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    await world.share("alice", FACT)
    await world.share("alice", PARAPHRASE)
    report = await world.run()
    assert report.published == 0 and await world.shared() == []


async def test_a_personal_fact_is_never_queued_nor_published(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    for user, text in (
        ("alice", "My account number is 4711 0815 2233."),
        ("bob", "My account number is 4711 0815 2233."),
        ("carol", "I was diagnosed with diabetes last year."),
        ("dave", "Ask dave.jones@example.com for the office keys."),
    ):
        out = await world.share(user, text)
        assert (out["share"], out["share_reason"]) == ("kept_private", "personal"), text
    assert await queued_pairs(engine) == []
    assert (await world.run()).published == 0


async def test_a_forgotten_share_leaves_the_gate_at_once(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    mine = await world.share("alice", FACT)
    await world.share("bob", PARAPHRASE)
    [before] = (await gate_status(engine, WS, world.policy, gate_matcher()))["agents"][0]["held"]
    assert before["distinct_subjects"] == 2
    await world.tools("alice").call("memory__forget", {"memory_id": mine["id"]})
    [after] = (await gate_status(engine, WS, world.policy, gate_matcher()))["agents"][0]["held"]
    assert after["distinct_subjects"] == 1  # before any run: alice's candidate is gone
    [hers] = set(before["candidates"]) - set(after["candidates"])
    got = await engine.get(GetRequest(ids=(hers,)))
    assert got.items == () and got.forgotten == ()  # purged, not merely hidden
    report = await world.run()
    assert report.published == 0 and await world.shared() == []


async def test_a_corrected_share_is_withdrawn_by_the_job(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    about = {"about_kind": "office", "about_key": "berlin-hours"}
    tools = world.tools("alice")
    await tools.call("memory__remember", {"content": FACT, "share": True, **about})
    await tools.call("memory__remember", {"content": "The Berlin office closes at 5 pm on Fridays.", **about})
    await world.share("bob", PARAPHRASE)
    report = await world.run()
    assert (report.withdrawn, report.published) == (1, 0)


async def test_the_published_copy_names_no_sharer(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    a = await world.share("alice.smith", f"alice.smith checked it: {FACT}")
    b = await world.share("bob", f"{PARAPHRASE} Confirmed by bob.")
    assert a["share"] == b["share"] == "queued"
    assert (await world.run()).published == 1
    [copy] = await world.shared()
    seen = repr(copy).lower()
    for secret in ("alice", "smith", "bob", a["id"], b["id"]):
        assert secret not in seen, secret
    assert copy.meta.source is not None and copy.meta.source.id is None


async def test_an_organisations_address_is_the_fact_and_stays(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    await world.share("alice", "Refund requests go to refunds@example.com within 30 days.")
    await world.share("bob", "Within 30 days, refund requests go to refunds@example.com.")
    assert (await world.run()).published == 1
    [copy] = await world.shared()
    assert "refunds@example.com" in copy.text


async def test_status_shows_groups_subjects_and_decisions(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    await world.share("alice", FACT)
    await world.share("alice", PARAPHRASE)
    await world.share("bob", OTHER)
    status = await gate_status(engine, WS, world.policy, gate_matcher())
    [agent] = status["agents"]
    held = sorted((g["distinct_subjects"], len(g["candidates"])) for g in agent["held"])
    assert held == [(1, 1), (1, 2)]
    assert all(g["needed"] == 2 and g["expires_at"] for g in agent["held"])
    await world.share("carol", OTHER)
    await world.run()
    after = (await gate_status(engine, WS, world.policy, gate_matcher()))["agents"][0]
    assert {d["decision"] for d in after["decisions"]} == {"published"}
    assert [p["text"] for p in after["published"]] == [OTHER]
    assert "alice" not in repr(after) and "carol" not in repr(after)
