"""The shared-write gate, rule by rule (seed 003, "Sharing a memory with the agent"), over a real SQLite
file: the memory__ tools queue shares, the job weighs them, other users read what it published."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory.api import GetRequest, ItemKind, ListRequest, MetaFilter, Namespace, NewItem, Reach, utcnow
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import Identity, MemoryPolicy, PolicyTools
from tinymemory.policy.gate import GateJob, contains_identifier, gate_matcher, gate_status, queued_pairs

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


async def test_a_share_too_long_to_be_one_fact_stays_the_users_own(engine: SqliteEngine) -> None:
    """A share over MAX_SHARE_CHARS is not read for identifiers (a megabyte of them would hold the
    writer for seconds): the user's copy is written, nothing reaches the gate."""
    world = World(engine, policy())
    text = "The Berlin office closes at 6 pm; write to jo@example.org. " + "1 a@ " * 2_000
    out = await world.share("alice", text)
    assert (out["share"], out["share_reason"]) == ("kept_private", "too_long")
    assert out["tier"] == "user_for_agent"
    assert await queued_pairs(engine) == []
    assert (await world.share("alice", FACT))["share"] == "queued"  # a fact of ordinary length still is


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
        ("dave", "Write to dave.jones@example.com."),
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


# -------------------------------------------------------------------------- every sharer, everywhere

BADGES = "The visitor badges are handed out by erin at reception."


def status_text(status: dict[str, Any]) -> str:
    return repr(status).casefold()


async def test_every_sharer_is_scrubbed_from_every_candidate(engine: SqliteEngine) -> None:
    # erin's own copy loses her name, frank's copy names erin: both must read the same to group.
    world = World(engine, policy())
    for user in ("erin", "frank"):
        assert (await world.share(user, BADGES))["share"] == "queued"
    status = await gate_status(engine, WS, world.policy, gate_matcher())
    [group] = status["agents"][0]["held"]
    assert group["distinct_subjects"] == 2
    assert "erin" not in status_text(status) and "frank" not in status_text(status)
    assert (await world.run()).published == 1
    [copy] = await world.shared()
    assert "erin" not in copy.text.casefold() and "reception" in copy.text
    after = await gate_status(engine, WS, world.policy, gate_matcher())
    assert "erin" not in status_text(after) and "frank" not in status_text(after)


async def test_a_sharer_whose_shares_are_settled_is_still_scrubbed(engine: SqliteEngine) -> None:
    # gina's only share is decided and leaves the queue; her name in later shares is still a sharer's.
    world = World(engine, policy())
    await world.share("gina", OTHER)
    await world.share("harry", OTHER)
    assert (await world.run()).published == 1
    permits = "Parking permits are signed at the front desk by gina."
    await world.share("ivan", permits)
    await world.share("judy", permits)
    assert "gina" not in status_text(await gate_status(engine, WS, world.policy, gate_matcher()))
    assert (await world.run()).published == 1
    texts = [s.text for s in await world.shared()]
    assert len(texts) == 2 and not [t for t in texts if "gina" in t.casefold()], texts


async def test_a_publication_naming_a_later_sharer_is_scrubbed_again(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    permits = "Parking permits are signed at the front desk by kate."
    await world.share("ivan", permits)
    await world.share("judy", permits)
    assert (await world.run()).published == 1
    [before] = await world.shared()
    assert "kate" in before.text  # kate is no sharer yet: her name is part of the fact
    await world.share("kate", FACT)  # now she is one: no publication may carry her name
    report = await world.run()
    assert report.rescrubbed == 1
    [after] = await world.shared()
    assert "kate" not in after.text.casefold() and "front desk" in after.text
    assert after.meta.purpose == before.meta.purpose
    got = await engine.get(GetRequest(ids=(before.id,)))
    assert got.items == () and got.forgotten == ()  # the version that named her is purged
    hits = await world.recall("carol", "who signs parking permits?")
    assert [h["id"] for h in hits if "front desk" in h["content"]] == [after.id]
    assert (await world.run()).rescrubbed == 0


async def test_a_publication_carrying_an_identifier_is_scrubbed_again(engine: SqliteEngine) -> None:
    # A copy published before a detector learnt a spelling: the next run takes the identifier out.
    world = World(engine, policy())
    await world.share("ivan", OTHER)
    await world.share("judy", OTHER)
    await world.run()
    [published] = await world.shared()
    leaked = "Refunds are accepted within 30 days of purchase; ask jane.doe@example.com."
    tier = Namespace.of(("workspace", WS), ("agent", AGENT))
    await engine.store(NewItem(ItemKind.LEARNING, leaked, replace(published.meta, namespace=tier)))
    await world.share("kate", FACT)
    report = await world.run()
    assert report.rescrubbed == 1
    [copy] = await world.shared()
    assert "jane" not in copy.text and "[email]" in copy.text


@pytest.mark.parametrize("dana", ["dana.lee", "dana_lee", "dana-lee", "Dana.Lee@acme"])
async def test_a_sharer_named_in_any_id_form_is_never_published(tmp_path: Path, dana: str) -> None:
    async with make_engine(tmp_path / "dana.db") as eng:
        world = World(eng, policy())
        travel = "Dana Lee approves every travel request above 500 euros"
        for user in (dana, "frank"):
            assert (await world.share(user, travel))["share"] == "queued"
        held = status_text(await gate_status(eng, WS, world.policy, gate_matcher()))
        assert (await world.run()).published == 1
        seen = [s.text for s in await world.shared()]
        seen += [h["content"] for h in await world.recall("carol", "who approves travel requests?")]
        seen += [held, status_text(await gate_status(eng, WS, world.policy, gate_matcher()))]
        assert len(seen) >= 3
        for text in seen:
            assert "dana" not in text.casefold() and "lee" not in text.casefold(), text


# ----------------------------------------------------- a fact that carries an identifier, without it

MADRID = "The Madrid office closes at 3 pm; write to bX@beta.example"


async def test_a_fact_that_carries_an_identifier_is_shared_without_it(engine: SqliteEngine) -> None:
    world = World(engine, policy())
    for user in ("alice", "bob"):
        out = await world.share(user, MADRID)
        assert (out["share"], out["share_reason"]) == ("queued", "scrubbed")
    [own] = await world.recall("alice", "Madrid office")
    assert own["content"] == MADRID  # the user's own copy keeps what they wrote
    status = await gate_status(engine, WS, world.policy, gate_matcher())
    assert "bx@" not in status_text(status)
    assert (await world.run()).published == 1
    [copy] = await world.shared()
    assert copy.text == "The Madrid office closes at 3 pm; write to [email]"
    hits = await world.recall("carol", "when does the Madrid office close?")
    assert hits and hits[0]["id"] == copy.id and hits[0]["metadata"]["tier"] == "agent"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (MADRID, ("queued", "scrubbed")),
        ("Ask dave.jones@example.com for the office keys.", ("queued", "scrubbed")),
        ("Parcels for Lisbon arrive on Tuesdays; text Rui on +351 912 345 678.", ("queued", "scrubbed")),
        ("Refunds go to refunds@example.com within 30 days.", ("queued", None)),  # a role address stays
        ("My account number is 4711 0815 2233.", ("kept_private", "personal")),  # first person
        ("I lost my badge; mail me at jo@example.org", ("kept_private", "personal")),
        ("She takes insulin; her phone is +49 30 1234 5678.", ("kept_private", "personal")),  # health
        ("Write to dave.jones@example.com.", ("kept_private", "personal")),  # nothing left but the address
        ("Call +49 30 1234 5678 for it.", ("kept_private", "personal")),
        ("The user's IBAN is DE89 3704 0044 0532 0130 00.", ("kept_private", "personal")),
        # a record's identifier is what the sentence is about: it stays private even scrubbed
        ("Refunds go to IBAN DE89 3704 0044 0532 0130 00 within 30 days.", ("kept_private", "personal")),
        ("Order #55123 was delivered to the wrong door", ("kept_private", "personal")),
        ("Policy number: HX-2291-77 covers the user's car", ("kept_private", "personal")),
        ("Anna lives at 45 Oak Avenue", ("kept_private", "personal")),
        ("The team lunch is paid with card 4111 1111 1111 1111", ("kept_private", "personal")),
        ("The office wifi password is hunter2 for visitors", ("kept_private", "personal")),
    ],
)
async def test_which_shares_are_queued_scrubbed(
    engine: SqliteEngine, text: str, answer: tuple[str, str | None]
) -> None:
    out = await World(engine, policy()).share("alice", text)
    assert (out["share"], out.get("share_reason")) == answer
    assert bool(await queued_pairs(engine)) is (answer[0] == "queued")
    if answer[1] == "scrubbed":
        [candidate] = (await gate_status(engine, WS, policy(), gate_matcher()))["agents"][0]["held"]
        assert not contains_identifier(candidate["text"], keep_organisational=True)
