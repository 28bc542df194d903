"""Retention and consent by category, a user's export and "forget me", through the public surface.

Each path ends the same way: no read of any kind (memory__recall, __list, __open, the engine's fetch,
get and explore, the gate's status, context.md) finds the text, and after the purge its bytes are gone
from the SQLite file and its WAL, or from every row of every Postgres table. Runs on both engines
(TINYMEMORY_TEST_ENGINE=postgres).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import is_postgres, make_engine, store_target
from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    Reach,
    utcnow,
)
from tinymemory.context import ContextSpec, compile
from tinymemory.policy import Identity, MemoryPolicy, PolicyTools, render_guidance
from tinymemory.policy.consent import consent_status, grant_consent, withdraw_consent
from tinymemory.policy.erasure import erasure_log, forget_me
from tinymemory.policy.gate import GateJob, gate_matcher, gate_status
from tinymemory.policy.retention import RetentionJob
from tinymemory.policy.user_export import export_user

WS, AGENT = "acme", "helper"
HEALTH = "zebrahealth42 the user takes insulin before lunch"
WORK = "the user works on the Atlas project"
FACT = "The Berlin office closes at 6 pm on Fridays."
SPEC: dict[str, Any] = {
    "retention": {"default": "365d", "categories": {"memory:health": "30d"}},
    "consent": {"required": ["memory:health"]},
    "gate": {"enabled": True, "minDistinctSubjects": 2, "window": "7d"},
}


def file_bytes(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        part = Path(str(path) + suffix)
        if part.exists():
            data += part.read_bytes()
    return data


def stored_anywhere(path: Path, needle: str) -> bool:
    """Whether any byte of the store still holds `needle`: the SQLite file and its WAL, or any row of
    any Postgres table (read as the superuser, so no row policy hides one)."""
    if not is_postgres():
        return needle.encode() in file_bytes(path)
    from postgres.test_purge import rows_holding

    return bool(rows_holding(store_target(path), needle))


class World:
    def __init__(self, engine: MemoryEngine, path: Path, policy: MemoryPolicy) -> None:
        self.engine, self.path, self.policy = engine, path, policy

    def who(self, user: str, agent: str | None = AGENT) -> Identity:
        return Identity(WS, user, agent, verified=True)

    def tools(self, user: str, agent: str | None = AGENT) -> PolicyTools:
        return PolicyTools.for_identity(self.engine, self.who(user, agent), self.policy)

    async def remember(self, user: str, content: str, **args: Any) -> dict[str, Any]:
        out: dict[str, Any] = await self.tools(user).call("memory__remember", {"content": content, **args})
        return out

    async def gate(self) -> Any:
        return await GateJob(self.engine, lambda _ws: self.policy, gate_matcher()).run()

    async def sightings(self, user: str, word: str, ids: list[str], *, everywhere: bool = True) -> list[str]:
        """Every read that still finds `word` (or one of `ids`), named; empty when forgotten. The engine's
        reads search the whole store, or with `everywhere=False` only what `user` may read."""
        found: list[str] = []
        tools = self.tools(user)
        recalled = await tools.call("memory__recall", {"query": word})
        if any(word in m["content"] for m in recalled["memories"]):
            found.append("recall")
        listed = await tools.call("memory__list", {"limit": 50})
        if any(word in m["content"] for m in listed["memories"]):
            found.append("list")
        for memory_id in ids:
            if (await tools.call("memory__open", {"memory_id": memory_id}))["status"] != "not_found":
                found.append("open")
        reach = None if everywhere else self.who(user).tiers.read_reach
        hits = await self.engine.fetch(
            FetchRequest(word, filter=MetaFilter(reach=reach), mode=FetchMode.LEXICAL, limit=50)
        )
        if any(word in h.item.text for h in hits.hits):
            found.append("fetch")
        if ids and (await self.engine.get(GetRequest(ids=tuple(ids)))).items:
            found.append("get")
        explored = await self.engine.explore(
            ExploreRequest(Facet.KIND, MetaFilter(categories=("memory:health",)), limit=10)
        )
        if any(b.count for b in explored.buckets):
            found.append("explore")
        status = await gate_status(self.engine, WS, self.policy, gate_matcher())
        if word in json.dumps(status):
            found.append("gate status")
        pack = await compile(self.engine, ContextSpec(reach=self.who(user).tiers.read_reach))
        if word in pack.markdown:
            found.append("context.md")
        return found


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    path = tmp_path / "retention.db"
    async with make_engine(path) as engine:
        yield World(engine, path, MemoryPolicy.from_dict(SPEC))


@pytest.mark.parametrize(
    ("spec", "field", "problem"),
    [
        ({"retention": {"default": "30y"}}, "retention.default", "unknown unit"),
        ({"retention": {"default": "-3d"}}, "retention.default", "negative"),
        ({"retention": {"default": "0d"}}, "retention.default", "longer than zero"),
        ({"retention": {"default": 30}}, "retention.default", "duration"),
        ({"retention": {"categories": {"health": "30d"}}}, "retention.categories", "kind:name"),
        (
            {"retention": {"categories": {"memory:health": "a month"}}},
            "retention.categories.memory:health",
            "duration",
        ),
        ({"retention": {"tiers": {"everyone": {"default": "1d"}}}}, "retention.tiers", "not a tier"),
        (
            {"retention": {"tiers": {"user": {"categories": {"x": "1d"}}}}},
            "retention.tiers.user.categories",
            "kind:name",
        ),
        ({"retention": {"forever": True}}, "retention.forever", "not a known field"),
        ({"consent": {"required": ["Health"]}}, "consent.required[0]", "kind:name"),
    ],
)
def test_bad_retention_and_consent_values_are_refused_naming_the_field(
    spec: dict[str, Any], field: str, problem: str
) -> None:
    with pytest.raises(InvalidRequest) as err:
        MemoryPolicy.from_dict(spec)
    assert f"`{field}`" in err.value.message and problem in err.value.message


def test_the_most_specific_retention_rule_wins() -> None:
    from tinymemory.policy import Tier

    policy = MemoryPolicy.from_dict(
        {
            "retention": {
                "default": "2w",
                "categories": {"memory:health": "30d"},
                "tiers": {"agent": {"default": "12h", "categories": {"memory:health": "1d"}}},
            }
        }
    )
    assert policy.retention_for(Tier.USER, "memory:health") == timedelta(days=30)
    assert policy.retention_for(Tier.USER, "Memory:Health ") == timedelta(days=30)
    assert policy.retention_for(Tier.USER, None) == timedelta(weeks=2)
    assert policy.retention_for(Tier.AGENT, "memory:health") == timedelta(days=1)
    assert policy.retention_for(Tier.AGENT, "memory:work") == timedelta(hours=12)
    assert MemoryPolicy.default().retention_for(Tier.USER, "memory:health") is None


async def test_remember_without_consent_is_refused_and_writes_nothing(world: World) -> None:
    before = await world.engine.list(ListRequest())
    for category in ("memory:health", "Memory:Health"):
        with pytest.raises(InvalidRequest) as err:
            await world.remember("dana", HEALTH, category=category)
        assert err.value.message.startswith("memory__remember: `category`")
        assert "consent" in err.value.message
    after = await world.engine.list(ListRequest())
    assert [i.id for i in after.items] == [i.id for i in before.items]
    remember = next(t for t in render_guidance(world.policy)["tools"] if t["name"] == "memory__remember")
    assert "need the user's consent" in remember["description"] and "memory:health" in remember["description"]
    default = next(t for t in render_guidance()["tools"] if t["name"] == "memory__remember")
    assert "consent before" not in default["description"]
    # a category that needs no consent is stored as before
    assert (await world.remember("dana", WORK, category="memory:work"))["status"] == "created"


async def test_withdrawing_consent_forgets_and_purges_the_category(world: World) -> None:
    dana = world.who("dana")
    assert (await grant_consent(world.engine, dana, world.policy, "memory:health"))["state"] == "granted"
    health = (await world.remember("dana", HEALTH, category="memory:health"))["id"]
    work = (await world.remember("dana", WORK, category="memory:work"))["id"]
    assert await world.sightings("dana", "zebrahealth42", [health]) != []
    assert stored_anywhere(world.path, "zebrahealth42")

    out = await withdraw_consent(world.engine, dana, world.policy, "memory:health")
    assert out["state"] == "withdrawn" and out["erased"]["memories"] == 1
    assert await world.sightings("dana", "zebrahealth42", [health]) == []
    assert not stored_anywhere(world.path, "zebrahealth42")
    assert (await world.tools("dana").call("memory__open", {"memory_id": work}))["status"] == "opened"
    status = await consent_status(world.engine, dana, world.policy)
    assert status["categories"][0]["state"] == "withdrawn"
    with pytest.raises(InvalidRequest, match="consent"):
        await world.remember("dana", HEALTH, category="memory:health")


async def test_consent_refuses_what_is_not_a_category_or_not_a_verified_user(world: World) -> None:
    with pytest.raises(InvalidRequest, match="`category`"):
        await grant_consent(world.engine, world.who("dana"), world.policy, "health")
    with pytest.raises(InvalidRequest, match="needs no consent"):
        await grant_consent(world.engine, world.who("dana"), world.policy, "memory:work")
    with pytest.raises(InvalidRequest, match="verified"):
        await grant_consent(world.engine, Identity(WS, "dana"), world.policy, "memory:health")


async def test_retention_expires_by_category_with_a_dry_run_first(world: World) -> None:
    dana = world.who("dana")
    await grant_consent(world.engine, dana, world.policy, "memory:health")
    health = (await world.remember("dana", HEALTH, category="memory:health"))["id"]
    work = (await world.remember("dana", WORK, category="memory:work"))["id"]
    later = utcnow() + timedelta(days=31)
    job = RetentionJob(world.engine, lambda _ws: world.policy, now=lambda: later)

    dry = await job.run(dry_run=True)
    assert dry.expired == {"user_for_agent/memory:health": 1} and dry.erased.memories == 0
    assert await world.sightings("dana", "zebrahealth42", [health]) != []

    report = await job.run()
    assert report.expired == {"user_for_agent/memory:health": 1} and report.erased.memories == 1
    assert await world.sightings("dana", "zebrahealth42", [health]) == []
    assert not stored_anywhere(world.path, "zebrahealth42")
    assert (await world.tools("dana").call("memory__open", {"memory_id": work}))["status"] == "opened"
    assert (await job.run()).expired == {}  # idempotent

    # a year on, the default takes the rest
    year = utcnow() + timedelta(days=366)
    gone = await RetentionJob(world.engine, lambda _ws: world.policy, now=lambda: year).run()
    assert gone.expired == {"user_for_agent/memory:work": 1}
    assert await world.sightings("dana", "Atlas", [work]) == []


async def test_retention_erases_the_evidence_a_shared_fact_stood_on(world: World) -> None:
    policy = MemoryPolicy.from_dict({**SPEC, "retention": {"categories": {"memory:ops": "1d"}}})
    world.policy = policy
    ids = {}
    for user in ("alice", "bob"):
        ids[user] = (await world.remember(user, FACT, share=True, category="memory:ops"))["id"]
    assert (await world.gate()).published == 1
    assert any(
        "Berlin" in m["content"]
        for m in (await world.tools("eve").call("memory__recall", {"query": "Berlin"}))["memories"]
    )

    later = utcnow() + timedelta(days=2)
    report = await RetentionJob(world.engine, lambda _ws: policy, now=lambda: later).run()
    assert report.erased.facts_withdrawn == 1
    assert await world.sightings("eve", "Berlin", list(ids.values())) == []
    assert not stored_anywhere(world.path, "Berlin office")


async def test_forget_me_keeps_a_shared_fact_only_while_enough_sharers_back_it(world: World) -> None:
    for user in ("alice", "bob", "carol"):
        await world.remember(user, FACT, share=True)
    secret = (await world.remember("alice", "zebraalice77 my locker code is 4411"))["id"]
    assert (await world.gate()).published == 1

    lines = [r async for r in export_user(world.engine, world.who("alice"))]
    assert {r["record"] for r in lines} >= {"subject", "memory", "gate_sharer", "gate_evidence"}

    first = await forget_me(world.engine, world.who("alice"), world.policy)
    assert (first.facts_kept, first.facts_withdrawn) == (1, 0)
    assert await world.sightings("alice", "zebraalice77", [secret]) == []
    assert not stored_anywhere(world.path, "zebraalice77")
    recalled = (await world.tools("eve").call("memory__recall", {"query": "Berlin Fridays"}))["memories"]
    assert [m["metadata"].get("purpose") for m in recalled if "Berlin" in m["content"]] == [
        "Shared knowledge of this agent, reported by 2 users (published by the gate)"
    ]
    assert [r["record"] for r in [r async for r in export_user(world.engine, world.who("alice"))]] == [
        "subject"
    ]

    second = await forget_me(world.engine, world.who("bob"), world.policy)
    assert second.facts_withdrawn == 1
    assert await world.sightings("eve", "Berlin", [], everywhere=False) == []  # carol keeps her own copy
    shared = Namespace.of(("workspace", WS), ("agent", AGENT))
    left = await world.engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(shared))))
    assert left.items == ()

    log = await world.engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(erasure_log(WS)))))
    assert len(log.items) == 2
    for record in log.items:
        assert "alice" not in record.text and "bob" not in record.text and "Berlin" not in record.text


async def test_an_export_holds_the_users_data_and_never_anothers(world: World) -> None:
    dana = world.who("dana")
    await grant_consent(world.engine, dana, world.policy, "memory:health")
    await world.remember("dana", HEALTH, category="memory:health")
    await world.remember("dana", "the user prefers tea", about_kind="preference", about_key="drink")
    await world.remember("dana", "the user prefers coffee", about_kind="preference", about_key="drink")
    await world.tools("dana", None).call("memory__remember", {"content": "dana keeps a cat"})
    await world.remember("eve", "zebraeve99 eve's own secret")
    await world.remember("danal", "zebradanal danal is another user")
    globex = Identity("globex", "dana", AGENT, verified=True)  # the same user name, another workspace
    await PolicyTools.for_identity(world.engine, globex, world.policy).call(
        "memory__remember", {"content": "zebraglobex dana at globex"}
    )
    lines = [r async for r in export_user(world.engine, dana)]
    text = json.dumps(lines)
    assert "zebraeve99" not in text and "zebradanal" not in text and "zebraglobex" not in text
    # one user's consent is theirs alone
    with pytest.raises(InvalidRequest, match="consent"):
        await world.remember("eve", HEALTH, category="memory:health")
    contents = [r["content"] for r in lines if r["record"] == "memory"]
    assert HEALTH in contents and "the user prefers tea" in contents and "the user prefers coffee" in contents
    assert "dana keeps a cat" in contents
    tiers = {r["tier"] for r in lines if r["record"] == "memory"}
    assert tiers == {"user", "user_for_agent"}
    assert [r["state"] for r in lines if r["record"] == "consent"] == ["granted"]
    with pytest.raises(InvalidRequest, match="verified"):
        [r async for r in export_user(world.engine, Identity(WS, "dana"))]


async def test_a_corrected_memory_keeps_no_version_past_its_time(world: World) -> None:
    """The version a correction replaced expires by its own time, though its successor is recent."""
    from dataclasses import replace as with_meta

    from tinymemory.api import About, ItemKind, ItemMeta, NewItem

    place = Namespace.parse("workspace:acme/user:dana")
    old = ItemMeta(
        place,
        learning_kind="general",
        about=About("doctor", "name"),
        observed_at=utcnow() - timedelta(days=400),
    )
    first = await world.engine.store(NewItem(ItemKind.LEARNING, "zebraold1 the doctor is Dr Old", old, 0.8))
    new = with_meta(old, observed_at=utcnow())
    second = await world.engine.store(NewItem(ItemKind.LEARNING, "zebranew2 the doctor is Dr New", new, 0.8))
    assert second.superseded == (first.id,)
    report = await RetentionJob(world.engine, lambda _ws: world.policy).run()
    assert report.expired == {"user/(none)": 1}
    assert not stored_anywhere(world.path, "zebraold1")
    assert (await world.tools("dana").call("memory__open", {"memory_id": second.id}))["status"] == "opened"


async def test_a_job_over_policies_without_retention_reads_nothing(world: World) -> None:
    await world.remember("dana", "zebraidle3 nothing limits me")
    later = utcnow() + timedelta(days=4000)
    idle = RetentionJob(
        world.engine, lambda _ws: MemoryPolicy.default(), now=lambda: later, policies=[MemoryPolicy.default()]
    )
    assert (await idle.run()).expired == {}
    busy = RetentionJob(world.engine, lambda _ws: world.policy, now=lambda: later, policies=[world.policy])
    assert (await busy.run(dry_run=True)).expired == {"user_for_agent/(none)": 1}


async def test_forget_me_takes_the_consent_record_and_every_tier(world: World) -> None:
    dana = world.who("dana")
    await grant_consent(world.engine, dana, world.policy, "memory:health")
    health = (await world.remember("dana", HEALTH, category="memory:health"))["id"]
    plain = (await world.tools("dana", None).call("memory__remember", {"content": "zebraplain8 a note"}))[
        "id"
    ]
    other_agent = await PolicyTools.for_identity(
        world.engine, world.who("dana", "scribe"), world.policy
    ).call("memory__remember", {"content": "zebrascribe9 kept with another agent"})
    eve = (await world.remember("eve", "zebraeve10 eve stays"))["id"]
    report = await forget_me(world.engine, dana, world.policy)
    assert report.memories == 3
    for word, memory_id in (
        ("zebrahealth42", health),
        ("zebraplain8", plain),
        ("zebrascribe9", other_agent["id"]),
    ):
        assert await world.sightings("dana", word, [memory_id]) == []
        assert not stored_anywhere(world.path, word)
    assert (await consent_status(world.engine, dana, world.policy))["categories"][0]["state"] == "none"
    assert [r["record"] async for r in export_user(world.engine, dana)] == ["subject"]
    assert (await world.tools("eve").call("memory__open", {"memory_id": eve}))["status"] == "opened"


async def test_withdrawal_takes_a_share_still_waiting_at_the_gate(world: World) -> None:
    world.policy = MemoryPolicy.from_dict({**SPEC, "consent": {"required": ["memory:ops"]}})
    alice = world.who("alice")
    await grant_consent(world.engine, alice, world.policy, "memory:ops")
    out = await world.remember("alice", FACT, share=True, category="memory:ops")
    assert out["share"] == "queued"
    status = await gate_status(world.engine, WS, world.policy, gate_matcher())
    assert "Berlin" in json.dumps(status)
    erased = (await withdraw_consent(world.engine, alice, world.policy, "memory:ops"))["erased"]
    assert erased["candidates"] == 1
    assert await world.sightings("alice", "Berlin", [out["id"]]) == []
    assert not stored_anywhere(world.path, "Berlin office")


async def _aged(world: World, text: str, days: float, **meta: Any) -> str:
    """A memory of dana's user tier observed `days` ago (as an import of older data writes it)."""
    from dataclasses import replace as with_meta

    from tinymemory.api import ItemKind, ItemMeta, NewItem

    base = ItemMeta(Namespace.parse("workspace:acme/user:dana"), learning_kind="general")
    stored = with_meta(base, observed_at=utcnow() - timedelta(days=days), **meta)
    return (await world.engine.store(NewItem(ItemKind.LEARNING, text, stored, 0.8))).id


@pytest.mark.parametrize("scoped", [False, True])
async def test_retention_reads_only_what_can_be_due(world: World, scoped: bool) -> None:
    """The job asks the engine only for memories older than the shortest rule and for versions a
    correction replaced since then: the many fresh memories are never read."""
    from tinymemory.api import About

    for n in range(40):
        await _aged(world, f"fresh note {n}", 0)
    await _aged(world, "zebradue1 past the default", 400)
    await _aged(world, "old enough to look at, kept", 100)  # older than 30d (health), younger than 365d
    doctor = About("doctor", "name")
    await _aged(world, "zebraold2 the doctor is Dr Old", 400, about=doctor)
    await _aged(world, "the doctor is Dr New", 0, about=doctor)  # a fresh correction of an old memory
    job = RetentionJob(world.engine, lambda _ws: world.policy, policies=[world.policy])
    report = await job.run(WS if scoped else None, dry_run=True)
    assert report.expired == {"user/(none)": 2}
    # the two old memories (current, then again as what was active at the horizon) and the version the
    # fresh correction replaced: none of the 41 fresh ones
    assert job.examined == 5
    assert (await job.run(WS if scoped else None)).erased.memories == 2
    assert not stored_anywhere(world.path, "zebradue1") and not stored_anywhere(world.path, "zebraold2")


async def test_a_job_without_its_policies_finds_the_same(world: World) -> None:
    """Given no `policies`, the job reads every current memory (it cannot know the shortest rule before
    it has seen the workspaces) and finds exactly what the narrow job finds."""
    from tinymemory.api import About

    doctor = About("doctor", "name")
    await _aged(world, "zebraold3 the doctor is Dr Old", 400, about=doctor)
    await _aged(world, "the doctor is Dr New", 0, about=doctor)
    await _aged(world, "fresh", 0)
    wide = RetentionJob(world.engine, lambda _ws: world.policy)
    narrow = RetentionJob(world.engine, lambda _ws: world.policy, policies=[world.policy])
    assert (await wide.run(dry_run=True)).expired == (await narrow.run(dry_run=True)).expired
    assert (await wide.run(dry_run=True)).expired == {"user/(none)": 1}


async def test_every_version_a_correction_closed_expires_by_its_own_time(world: World) -> None:
    """A new version of an about key closes every active version of it, though it names only one as
    the version it supersedes: each closed version past its time goes too."""
    from dataclasses import replace as with_meta

    from tinymemory.api import About, ItemKind, ItemMeta, NewItem

    doctor = About("doctor", "name")
    place = Namespace.parse("workspace:acme/user:dana")
    old = ItemMeta(place, learning_kind="general", about=doctor, observed_at=utcnow() - timedelta(days=400))
    for text in ("zebrafirst4 Dr First", "zebrasecond5 Dr Second"):
        await world.engine.store(NewItem(ItemKind.LEARNING, text, old, 0.8, supersede=False))
    newest = await world.engine.store(
        NewItem(ItemKind.LEARNING, "the doctor is Dr Third", with_meta(old, observed_at=utcnow()), 0.8)
    )
    assert len(newest.superseded) == 2
    job = RetentionJob(world.engine, lambda _ws: world.policy, policies=[world.policy])
    assert (await job.run()).expired == {"user/(none)": 2}
    assert not stored_anywhere(world.path, "zebrafirst4") and not stored_anywhere(world.path, "zebrasecond5")
    assert (await world.tools("dana").call("memory__open", {"memory_id": newest.id}))["status"] == "opened"


async def test_forget_me_needs_a_verified_user(world: World) -> None:
    """Forget me erases for good: a library error naming the operation, and nothing erased, for an
    identity that names no user or one not verified."""
    kept = (await world.remember("dana", "zebrakept6 still here"))["id"]
    for who in (Identity(WS, "dana"), Identity(WS, None, AGENT), Identity(WS)):
        with pytest.raises(InvalidRequest) as err:
            await forget_me(world.engine, who, world.policy)
        assert err.value.message.startswith("forget me:") and "verified user" in err.value.message
    assert (await world.tools("dana").call("memory__open", {"memory_id": kept}))["status"] == "opened"
    log = await world.engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(erasure_log(WS)))))
    assert log.items == ()
