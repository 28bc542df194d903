"""The memory__ tools, rule by rule, over a real SQLite file."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from policy_world import DANA, DANA_NO_AGENT, EVE, ground_truth, put, stored, tools
from tinymemory.api import GetRequest, InvalidRequest, Namespace, Ref, Unsupported, format_rfc3339, utcnow
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import (
    POLICY_TOOL_NAMES,
    Identity,
    MemoryPolicy,
    Registration,
)

POLICY = MemoryPolicy.from_dict(
    {
        "schema": {
            "types": [
                {"name": "general"},
                {"name": "preference", "tiers": ["user", "user_for_agent"]},
                {"name": "account_fact", "tiers": ["user"]},
                {"name": "procedure", "tiers": ["agent", "institutional"]},
            ],
            "relations": [{"name": "works_on"}],
        },
        "dedup": {"requireAboutForKinds": ["preference"]},
        "recall": {"inlineThresholdBytes": 100},
    }
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "memory.db", embedder=None)
    yield eng
    await eng.close()


# --- registration -----------------------------------------------------------------------------------


async def test_a_verified_user_gets_the_five_tools(engine: SqliteEngine) -> None:
    t = tools(engine)
    assert (
        t.names()
        == list(POLICY_TOOL_NAMES)
        == [
            "memory__remember",
            "memory__recall",
            "memory__open",
            "memory__list",
            "memory__forget",
        ]
    )
    assert [s.name for s in t.specs()] == t.names()


@pytest.mark.parametrize(
    "identity",
    [Identity("acme"), Identity("acme", agent="helper", verified=True), Identity("acme", "dana", "helper")],
    ids=["anonymous", "verified-without-user", "api-key"],
)
async def test_no_verified_user_no_tools_logged_at_info(
    engine: SqliteEngine, identity: Identity, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="tinymemory.policy"):
        t = tools(engine, identity)
    assert t.names() == [] and t.specs() == []
    assert [r.levelno for r in caplog.records if r.name == "tinymemory.policy"] == [logging.INFO]
    assert "not registered" in caplog.records[-1].getMessage()
    before = await ground_truth(engine)
    for name in POLICY_TOOL_NAMES:
        with pytest.raises(Unsupported, match=rf"^{name}: memory tools are offered only to a verified user"):
            await t.call(name, {"content": "x", "query": "x", "memory_id": "m_1"})
    assert await ground_truth(engine) == before


async def test_a_verified_user_is_not_logged(engine: SqliteEngine, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="tinymemory.policy"):
        tools(engine)
    assert not [r for r in caplog.records if r.name == "tinymemory.policy"]


async def test_open_is_offered_only_with_recall(engine: SqliteEngine) -> None:
    no_recall = tools(engine, registration=Registration(offer=("memory__remember", "memory__open")))
    assert no_recall.names() == ["memory__remember"]
    with pytest.raises(Unsupported, match=r"^memory__open: it is not offered"):
        await no_recall.call("memory__open", {"memory_id": "m_1"})
    assert tools(engine, registration=Registration(offer=("memory__open", "memory__recall"))).names() == [
        "memory__recall",
        "memory__open",
    ]


async def test_recall_answers_with_previews_only_when_open_is_offered(engine: SqliteEngine) -> None:
    body = "Orchid runbook. " + "step " * 100  # above the 100-byte threshold
    await tools(engine, policy=POLICY).call("memory__remember", {"content": body})
    with_open = await tools(engine, policy=POLICY).call("memory__recall", {"query": "orchid runbook"})
    assert with_open["memories"][0]["content"] == ""
    assert with_open["memories"][0]["metadata"]["has_full_body"] is True
    without = tools(engine, policy=POLICY, registration=Registration(offer=("memory__recall",)))
    assert without.previews is False
    out = await without.call("memory__recall", {"query": "orchid runbook"})
    assert out["memories"][0]["content"] == body
    assert "has_full_body" not in out["memories"][0]["metadata"]
    assert "content_preview" not in json.dumps(out)
    assert "memory__open" not in without.specs()[0].description


async def test_tools_and_ambient_retrieval_are_independent_switches(engine: SqliteEngine) -> None:
    only_retrieval = tools(engine, registration=Registration(tools=False, retrieval=True))
    assert only_retrieval.names() == [] and only_retrieval.ambient_reach() == DANA.tiers.read_reach
    only_tools = tools(engine, registration=Registration(tools=True, retrieval=False))
    assert only_tools.names() == list(POLICY_TOOL_NAMES) and only_tools.ambient_reach() is None
    assert tools(engine, Identity("acme")).ambient_reach() is None


def test_a_registration_names_only_memory_tools() -> None:
    with pytest.raises(
        InvalidRequest, match=r"^registration: `offer\[0\]` `memory_store` is not a memory tool"
    ):
        Registration(offer=("memory_store",))


# --- memory__remember -------------------------------------------------------------------------------


async def test_remember_lands_in_the_identitys_tier_with_defaults(engine: SqliteEngine) -> None:
    out = await tools(engine).call("memory__remember", {"content": "Dana prefers tea."})
    assert out == {"id": out["id"], "status": "created", "tier": "user_for_agent"}
    item = await stored(engine, out["id"])
    assert item.namespace == Namespace.parse("workspace:acme/user:dana/agent:helper")
    assert item.meta.learning_kind == "general" and item.confidence == pytest.approx(0.8)
    plain = await tools(engine, DANA_NO_AGENT).call("memory__remember", {"content": "Dana prefers tea."})
    assert plain["tier"] == "user"
    assert (await stored(engine, plain["id"])).namespace == Namespace.parse("workspace:acme/user:dana")


async def test_remember_keeps_every_field_it_was_given(engine: SqliteEngine) -> None:
    out = await tools(engine).call(
        "memory__remember",
        {
            "content": "Dana is allergic to peanuts.",
            "type": "fact",
            "confidence": 0.95,
            "category": "memory:health",
            "about_kind": "allergy",
            "about_key": "dana",
            "purpose": "to suggest safe recipes",
            "title": "Peanut allergy",
            "summary": "No peanuts.",
        },
    )
    m = (await stored(engine, out["id"])).meta
    assert (m.learning_kind, m.category, m.purpose, m.title, m.summary) == (
        "fact",
        "memory:health",
        "to suggest safe recipes",
        "Peanut allergy",
        "No peanuts.",
    )
    assert m.about is not None and (m.about.kind, m.about.key) == ("allergy", "dana")
    assert (await stored(engine, out["id"])).confidence == pytest.approx(0.95)


async def test_remember_offers_the_policys_user_writable_types(engine: SqliteEngine) -> None:
    t = tools(engine, policy=POLICY)
    enum = t.specs()[0].parameters["properties"]["type"]["enum"]
    assert enum == ["general", "preference", "account_fact"]  # procedure is for shared tiers only
    with pytest.raises(InvalidRequest, match=r"^memory__remember: `type` `procedure` is not a memory type"):
        await t.call("memory__remember", {"content": "x", "type": "procedure"})
    # account_fact is user-only: a conversation with an agent writes to user_for_agent
    with pytest.raises(
        InvalidRequest, match=r"`type` `account_fact` may not be written to the user_for_agent"
    ):
        await t.call("memory__remember", {"content": "Dana's plan is gold.", "type": "account_fact"})
    ok = await tools(engine, DANA_NO_AGENT, POLICY).call(
        "memory__remember", {"content": "Dana's plan is gold.", "type": "account_fact"}
    )
    assert ok["tier"] == "user"


async def test_types_named_in_require_about_need_about_keys(engine: SqliteEngine) -> None:
    t = tools(engine, policy=POLICY)
    before = await ground_truth(engine)
    with pytest.raises(
        InvalidRequest, match=r"`about_kind` and `about_key` are required .* type `preference`"
    ):
        await t.call("memory__remember", {"content": "Dana likes tea.", "type": "preference"})
    with pytest.raises(InvalidRequest, match=r"^memory__remember: `about_key` is required with `about_kind`"):
        await t.call("memory__remember", {"content": "x", "type": "preference", "about_kind": "drink"})
    with pytest.raises(InvalidRequest, match=r"^memory__remember: `about_kind` is required with `about_key`"):
        await t.call("memory__remember", {"content": "x", "about_key": "drink"})
    assert await ground_truth(engine) == before
    ok = await t.call(
        "memory__remember",
        {"content": "Dana likes tea.", "type": "preference", "about_kind": "drink", "about_key": "dana"},
    )
    assert ok["status"] == "created"


async def test_share_without_a_gate_is_accepted_stored_privately_and_never_recorded(
    engine: SqliteEngine,
) -> None:
    out = await tools(engine).call("memory__remember", {"content": "Refunds take five days.", "share": True})
    assert out["share"] == "kept_private" and out["tier"] == "user_for_agent"
    item = await stored(engine, out["id"])
    assert item.namespace == DANA.tiers.user_for_agent
    assert "share" not in repr(item.meta) and item.meta.extra == () and item.meta.tags == ()
    eve = await tools(engine, EVE).call("memory__recall", {"query": "refunds"})
    assert eve["memories"] == []  # nothing reached the agent's shared tier
    # and share=false is the same save, without the share note
    again = await tools(engine).call(
        "memory__remember", {"content": "Refunds take five days.", "share": False}
    )
    assert again == {"id": out["id"], "status": "unchanged", "tier": "user_for_agent"}


async def test_share_with_user_shares_switched_off_stays_private(engine: SqliteEngine) -> None:
    off = MemoryPolicy.from_dict({"gate": {"accept": {"userShares": False}}})
    out = await tools(engine, policy=off).call("memory__remember", {"content": "x y z", "share": True})
    assert out["share"] == "kept_private"
    assert (await stored(engine, out["id"])).namespace == DANA.tiers.user_for_agent


async def test_correct_a_fact_by_about_key_and_read_it_back_with_and_without_as_of(
    engine: SqliteEngine,
) -> None:
    """The seed's example: reusing about_kind + about_key supersedes in place; as_of reads the past."""
    t = tools(engine)
    first = await t.call(
        "memory__remember",
        {"content": "Dana's office is in Lyon.", "about_kind": "office", "about_key": "dana"},
    )
    between = format_rfc3339(utcnow())
    second = await t.call(
        "memory__remember",
        {"content": "Dana's office is in Paris.", "about_kind": "office", "about_key": "dana"},
    )
    assert second["status"] == "updated" and second["supersedes"] == [first["id"]]
    now = await t.call("memory__recall", {"query": "Dana office"})
    assert [m["content"] for m in now["memories"]] == ["Dana's office is in Paris."]
    past = await t.call("memory__recall", {"query": "Dana office", "as_of": between})
    assert [m["content"] for m in past["memories"]] == ["Dana's office is in Lyon."]
    assert [m["id"] for m in past["memories"]] == [first["id"]]
    # the id the caller held resolves to the current version
    opened = await t.call("memory__open", {"memory_id": first["id"]})
    assert opened["id"] == second["id"] and opened["content"] == "Dana's office is in Paris."
    # the old version keeps its history
    assert (await stored(engine, first["id"])).valid_to is not None


async def test_supersession_stays_within_the_tier(engine: SqliteEngine) -> None:
    about = {"about_kind": "office", "about_key": "dana"}
    with_agent = await tools(engine).call("memory__remember", {"content": "Office: Lyon.", **about})
    user_tier = await tools(engine, DANA_NO_AGENT).call(
        "memory__remember", {"content": "Office: Paris.", **about}
    )
    assert user_tier["status"] == "created" and "supersedes" not in user_tier
    assert (await stored(engine, with_agent["id"])).valid_to is None


# --- memory__recall ---------------------------------------------------------------------------------


async def test_recall_results_carry_tier_and_score(engine: SqliteEngine) -> None:
    await put(engine, "workspace:acme", "The orchid cluster hosts staging.")
    await put(engine, "workspace:acme/agent:helper", "The orchid cluster restarts nightly.")
    await tools(engine).call("memory__remember", {"content": "Dana owns the orchid cluster."})
    out = await tools(engine).call("memory__recall", {"query": "orchid cluster"})
    tiers = sorted(m["metadata"]["tier"] for m in out["memories"])
    assert tiers == ["agent", "institutional", "user_for_agent"]
    for m in out["memories"]:
        assert isinstance(m["metadata"]["score"], float)
        assert set(m) == {"id", "type", "content", "confidence", "metadata"}
        assert "namespace" not in json.dumps(m) and "workspace:" not in json.dumps(m)
    scores = [m["metadata"]["score"] for m in out["memories"]]
    assert scores == sorted(scores, reverse=True)


async def test_recall_types_and_kinds_merge_and_limit_and_min_confidence(engine: SqliteEngine) -> None:
    t = tools(engine)
    for kind, conf in (("fact", 0.9), ("preference", 0.6), ("event", 0.3), ("decision", 0.9)):
        await t.call(
            "memory__remember", {"content": f"orchid {kind} memory", "type": kind, "confidence": conf}
        )

    async def kinds(**args: Any) -> list[str]:
        out = await t.call("memory__recall", {"query": "orchid memory", **args})
        return sorted(m["type"] for m in out["memories"])

    assert await kinds(types=["fact"], kinds=["preference"]) == ["fact", "preference"]
    assert await kinds(kinds=["event"]) == ["event"]
    assert await kinds(min_confidence=0.8) == ["decision", "fact"]
    assert len(await kinds(limit=2)) == 2
    assert len(await kinds()) == 4


MALFORMED: list[tuple[dict[str, Any], str]] = [
    ({"kinds": "fact"}, "`kinds` must be an array"),
    ({"kinds": [""]}, "`kinds[0]` must not be blank"),
    ({"kinds": ["Fact!"]}, "`kinds[0]` `Fact!` is not a memory type"),
    ({"kinds": [3]}, "`kinds[0]` must be a string"),
    ({"types": ["a b"]}, "`types[0]` `a b` is not a memory type"),
    (
        {"relation_types": ["works on"], "seed_name": "Dana"},
        "`relation_types[0]` `works on` is not a relation",
    ),
    ({"relation_types": "works_on", "seed_name": "Dana"}, "`relation_types` must be an array"),
    ({"relation_types": ["works_on"]}, "`relation_types` is only used with `seed_name`"),
    ({"max_hops": 2}, "`max_hops` is only used with `seed_name`"),
    ({"seed_name": "Dana", "max_hops": 3}, "`max_hops` must be between 1 and 2, got 3"),
    ({"seed_name": "Dana", "max_hops": 0}, "`max_hops` must be between 1 and 2"),
    ({"seed_name": "Dana", "max_hops": "2"}, "`max_hops` must be an integer"),
    ({"seed_name": "Dana", "max_hops": 1.5}, "`max_hops` must be an integer"),
    ({"seed_name": ""}, "`seed_name` must not be blank"),
    ({"seed_name": 7}, "`seed_name` must be a string"),
    ({"seed_name": "x" * 257}, "`seed_name` is longer than 256 characters"),
    ({"as_of": "yesterday"}, "`as_of` `yesterday` is not an RFC 3339 timestamp"),
    ({"as_of": "2024-05-08"}, "`as_of` `2024-05-08` is not an RFC 3339 timestamp"),
    ({"as_of": "2024-05-08T10:00:00"}, "is not an RFC 3339 timestamp"),
    ({"as_of": 1715162400}, "`as_of`"),
    ({"limit": 0}, "`limit` must be between 1 and 50"),
    ({"min_confidence": 2}, "`min_confidence` must be between 0 and 1"),
    ({"query": ""}, "`query` must not be blank"),
]


@pytest.mark.parametrize(("args", "message"), MALFORMED)
async def test_malformed_recall_arguments_are_errors_to_the_agent(
    engine: SqliteEngine, args: dict[str, Any], message: str
) -> None:
    call = {"query": "orchid", **args}
    with pytest.raises(InvalidRequest) as err:
        await tools(engine).call("memory__recall", call)
    assert str(err.value).startswith("memory__recall: `"), str(err.value)
    assert message in str(err.value)


async def test_recall_kinds_follow_the_policy_schema(engine: SqliteEngine) -> None:
    t = tools(engine, policy=POLICY)
    kinds = t.specs()[1].parameters["properties"]["kinds"]["items"]["enum"]
    assert kinds == ["general", "preference", "account_fact", "procedure"]  # every declared type
    with pytest.raises(InvalidRequest, match=r"`kinds\[0\]` `fact` is not a memory type \(one of: general"):
        await t.call("memory__recall", {"query": "x", "kinds": ["fact"]})
    with pytest.raises(
        InvalidRequest, match=r"`relation_types\[0\]` `leads` is not a relation type \(one of: works_on"
    ):
        await t.call("memory__recall", {"query": "x", "seed_name": "Dana", "relation_types": ["leads"]})
    # without a schema any well-formed word is a kind (institutional ingestion may write its own)
    free = await tools(engine).call("memory__recall", {"query": "x", "kinds": ["ingested_note"]})
    assert free == {"memories": []}


async def test_a_20_kb_body_is_recalled_as_a_preview_then_opened(engine: SqliteEngine) -> None:
    """The seed's example: above recall.inlineThresholdBytes the content is empty, the metadata carries
    the opening and has_full_body; memory__open returns the whole body."""
    body = "The orchid migration plan. " + " ".join(
        f"step{i} copy the shard and verify it" for i in range(560)
    )
    assert 20_000 <= len(body.encode()) <= 21_000
    t = tools(engine)
    saved = await t.call("memory__remember", {"content": body, "title": "Orchid migration"})
    short = await t.call("memory__remember", {"content": "The orchid migration starts Monday."})
    out = await t.call("memory__recall", {"query": "orchid migration plan"})
    by_id = {m["id"]: m for m in out["memories"]}
    big = by_id[saved["id"]]
    assert big["content"] == ""
    assert big["metadata"]["has_full_body"] is True
    preview = big["metadata"]["content_preview"]
    assert preview and body.startswith(preview) and len(preview.encode()) <= 1024
    assert big["metadata"]["title"] == "Orchid migration"
    assert by_id[short["id"]]["content"] == "The orchid migration starts Monday."
    assert "has_full_body" not in by_id[short["id"]]["metadata"]
    opened = await t.call("memory__open", {"memory_id": saved["id"]})
    assert opened == {
        "status": "opened",
        "id": saved["id"],
        "type": "general",
        "title": "Orchid migration",
        "content": body,
    }


async def test_the_threshold_is_the_policys(engine: SqliteEngine) -> None:
    body = "orchid " * 20  # 140 bytes: inline by default, a preview under a 100-byte threshold
    await tools(engine).call("memory__remember", {"content": body})
    default = await tools(engine).call("memory__recall", {"query": "orchid"})
    assert default["memories"][0]["content"] == body
    small = await tools(engine, policy=POLICY).call("memory__recall", {"query": "orchid"})
    assert small["memories"][0]["content"] == "" and small["memories"][0]["metadata"]["has_full_body"]


async def test_many_bodies_under_the_threshold_stay_within_the_result_bound(engine: SqliteEngine) -> None:
    t = tools(engine)
    for i in range(20):
        await t.call("memory__remember", {"content": f"orchid note {i} " + "detail " * 1100})  # ~7.7 KB
    out = await t.call("memory__recall", {"query": "orchid note", "limit": 20})
    size = len(json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= 65536
    inline = [m for m in out["memories"] if m["content"]]
    previews = [m for m in out["memories"] if m["metadata"].get("has_full_body")]
    assert inline and previews and len(inline) + len(previews) == 20
    for m in previews:  # each can still be opened whole
        assert (await t.call("memory__open", {"memory_id": m["id"]}))["content"].startswith("orchid note")


# --- memory__open -----------------------------------------------------------------------------------


async def test_open_not_found_is_identical_for_another_users_id_a_missing_id_and_garbage(
    engine: SqliteEngine,
) -> None:
    """The seed's example: nothing tells the three apart but the echoed id."""
    eves = await tools(engine, EVE).call("memory__remember", {"content": "Eve's salary is private."})
    forgotten = await tools(engine).call("memory__remember", {"content": "to be forgotten"})
    await tools(engine).call("memory__forget", {"memory_id": forgotten["id"]})
    probes = [eves["id"], "m_000000000000000000000000", "not-an-id", forgotten["id"], "x" * 256]
    answers = [await tools(engine).call("memory__open", {"memory_id": p}) for p in probes]
    texts = [json.dumps(a, separators=(",", ":")) for a in answers]
    for probe, text in zip(probes, texts, strict=True):
        assert text.replace(probe, "<id>") == texts[0].replace(probes[0], "<id>")
    assert answers[0] == {
        "status": "not_found",
        "id": eves["id"],
        "message": "no memory with this id is visible in this conversation",
    }


async def test_open_returns_refs_and_parent_title_and_marks_gone_media_unavailable(
    engine: SqliteEngine,
) -> None:
    refs = (
        Ref("image", "diagram.png", "image/png", "ab" * 32, "available"),
        Ref("attachment", "gone.pdf", "application/pdf", None, "unavailable"),
        Ref("link", "https://example.org/spec", None, None, "available", "https://example.org/spec"),
        Ref("image", "purged.png", "image/png", "cd" * 32, "available", "https://cdn.example.org/p.png"),
    )
    memory_id = await put(
        engine,
        "workspace:acme",
        "Chunk of the runbook.",
        parent_title="Orchid runbook",
        refs=refs,
        title="Step 1",
    )

    async def probe(ref: Ref) -> bool:
        return ref.ref != "purged.png"  # the host's media store lost this one

    opened = await tools(engine, media_probe=probe).call("memory__open", {"memory_id": memory_id})
    assert opened == {
        "status": "opened",
        "id": memory_id,
        "type": "general",
        "title": "Step 1",
        "content": "Chunk of the runbook.",
        "parent_title": "Orchid runbook",
        "refs": [
            {
                "kind": "image",
                "ref": "diagram.png",
                "media_type": "image/png",
                "sha256": "ab" * 32,
                "status": "available",
            },
            {
                "kind": "attachment",
                "ref": "gone.pdf",
                "media_type": "application/pdf",
                "status": "unavailable",
            },
            {
                "kind": "link",
                "ref": "https://example.org/spec",
                "status": "available",
                "url": "https://example.org/spec",
            },
            {
                "kind": "image",
                "ref": "purged.png",
                "media_type": "image/png",
                "sha256": "cd" * 32,
                "status": "unavailable",
            },
        ],
    }


async def test_open_requires_a_string_id(engine: SqliteEngine) -> None:
    for bad, problem in (
        ({}, "is required"),
        ({"memory_id": 5}, "must be a string"),
        ({"memory_id": " "}, "blank"),
    ):
        with pytest.raises(InvalidRequest, match=rf"^memory__open: `memory_id` .*{problem}"):
            await tools(engine).call("memory__open", bad)


# --- memory__list -----------------------------------------------------------------------------------


async def test_list_by_scope_type_and_cursor(engine: SqliteEngine) -> None:
    t = tools(engine)
    await put(engine, "workspace:acme", "Institutional fact.")
    await put(engine, "workspace:acme/agent:helper", "Agent procedure.", learning_kind="procedure")
    for i in range(3):
        await t.call("memory__remember", {"content": f"Dana fact {i}", "type": "fact"})
    mine = await tools(engine, DANA_NO_AGENT).call("memory__remember", {"content": "Dana's own note."})

    async def contents(**args: Any) -> list[str]:
        out = await t.call("memory__list", args)
        return sorted(m["content"] for m in out["memories"])

    assert len(await contents()) == 6
    assert await contents(scope="institutional") == ["Institutional fact."]
    assert await contents(scope="agent") == ["Agent procedure."]
    assert await contents(scope="user") == ["Dana's own note."]
    assert await contents(scope="user_for_agent") == ["Dana fact 0", "Dana fact 1", "Dana fact 2"]
    assert await contents(type="procedure") == ["Agent procedure."]
    page = await t.call("memory__list", {"limit": 4})
    assert len(page["memories"]) == 4 and "next_cursor" in page
    rest = await t.call("memory__list", {"limit": 4, "cursor": page["next_cursor"]})
    assert len(rest["memories"]) == 2 and "next_cursor" not in rest
    ids = {m["id"] for m in page["memories"]} | {m["id"] for m in rest["memories"]}
    assert mine["id"] in ids and len(ids) == 6
    for m in page["memories"]:
        assert "score" not in m["metadata"] and m["metadata"]["tier"]


async def test_list_scope_must_be_a_tier_of_the_conversation(engine: SqliteEngine) -> None:
    with pytest.raises(
        InvalidRequest, match=r"^memory__list: `scope` `agent` is not a tier of this conversation"
    ):
        await tools(engine, DANA_NO_AGENT).call("memory__list", {"scope": "agent"})
    with pytest.raises(InvalidRequest, match=r"^memory__list: `scope` `everyone` is not a scope"):
        await tools(engine).call("memory__list", {"scope": "everyone"})


# --- memory__forget ---------------------------------------------------------------------------------


async def test_forget_is_a_soft_delete_never_seen_again(engine: SqliteEngine) -> None:
    t = tools(engine)
    saved = await t.call("memory__remember", {"content": "Dana's locker code is 4411."})
    out = await t.call("memory__forget", {"memory_id": saved["id"]})
    assert out == {"status": "forgotten", "id": saved["id"], "versions": 1}
    assert (await t.call("memory__recall", {"query": "locker code"}))["memories"] == []
    assert (await t.call("memory__list", {}))["memories"] == []
    assert (await t.call("memory__open", {"memory_id": saved["id"]}))["status"] == "not_found"
    assert saved["id"] not in await ground_truth(engine)
    again = await t.call("memory__forget", {"memory_id": saved["id"]})
    assert again["status"] == "not_found"


async def test_forget_takes_every_version_and_is_not_the_update_path(engine: SqliteEngine) -> None:
    t = tools(engine)
    about = {"about_kind": "office", "about_key": "dana"}
    first = await t.call("memory__remember", {"content": "Office: Lyon.", **about})
    between = format_rfc3339(utcnow())
    second = await t.call("memory__remember", {"content": "Office: Paris.", **about})
    out = await t.call("memory__forget", {"memory_id": first["id"]})  # an old id names the fact
    assert out == {"status": "forgotten", "id": second["id"], "versions": 2}
    got = await engine.get(GetRequest(ids=(first["id"], second["id"])))
    assert got.items == () and {f.id for f in got.forgotten} == {first["id"], second["id"]}
    assert await ground_truth(engine) == {}  # and nothing new was written
    assert (await t.call("memory__recall", {"query": "office", "as_of": between}))["memories"] == []


async def test_forget_reaches_only_the_users_own_tiers(engine: SqliteEngine) -> None:
    shared = await put(engine, "workspace:acme/agent:helper", "Refunds take five days.")
    institutional = await put(engine, "workspace:acme", "The office closes at six.")
    before = await ground_truth(engine)
    for memory_id in (shared, institutional):
        out = await tools(engine).call("memory__forget", {"memory_id": memory_id})
        assert out["status"] == "not_allowed" and out["id"] == memory_id
    assert await ground_truth(engine) == before


# --- strictness -------------------------------------------------------------------------------------

HOST_FIXED: list[tuple[str, dict[str, Any], str]] = [
    ("memory__remember", {"content": "x", "namespace": "workspace:globex"}, "namespace"),
    ("memory__remember", {"content": "x", "reach": "all"}, "reach"),
    ("memory__recall", {"query": "x", "kinds": [{"namespace": ""}]}, "kinds[0].namespace"),
    ("memory__list", {"scope": {"reach": 1}}, "scope.reach"),
    ("memory__open", {"memory_id": "m_1", "namespace": None}, "namespace"),
    ("memory__forget", {"memory_id": "m_1", "reach": {"subtree": ""}}, "reach"),
]


@pytest.mark.parametrize(("tool", "args", "field"), HOST_FIXED)
async def test_namespace_and_reach_keys_are_refused_at_any_depth(
    engine: SqliteEngine, tool: str, args: dict[str, Any], field: str
) -> None:
    before = await ground_truth(engine)
    with pytest.raises(InvalidRequest) as err:
        await tools(engine).call(tool, args)
    assert str(err.value).startswith(f"{tool}: `{field}` is fixed by the host"), str(err.value)
    assert await ground_truth(engine) == before


UNKNOWN: list[tuple[str, dict[str, Any], str]] = [
    ("memory__remember", {"content": "x", "tier": "agent"}, "tier"),
    ("memory__remember", {"content": "x", "agent": "other"}, "agent"),
    ("memory__remember", {"content": "x", "user": "eve"}, "user"),
    ("memory__recall", {"query": "x", "workspace": "globex"}, "workspace"),
    ("memory__list", {"filter": {}}, "filter"),
    ("memory__open", {"memory_id": "m_1", "version": 2}, "version"),
    ("memory__forget", {"memory_id": "m_1", "hard": True}, "hard"),
]


@pytest.mark.parametrize(("tool", "args", "field"), UNKNOWN)
async def test_unknown_keys_are_refused(
    engine: SqliteEngine, tool: str, args: dict[str, Any], field: str
) -> None:
    before = await ground_truth(engine)
    with pytest.raises(InvalidRequest, match=rf"^{tool}: `{field}` is not a known argument"):
        await tools(engine).call(tool, args)
    assert await ground_truth(engine) == before


async def test_bad_names_and_argument_shapes(engine: SqliteEngine) -> None:
    t = tools(engine)
    with pytest.raises(
        InvalidRequest, match=r"^`memory_store` is not a memory tool \(offered: memory__remember"
    ):
        await t.call("memory_store", {})
    with pytest.raises(InvalidRequest, match=r"^memory__recall: arguments are not valid json"):
        await t.call("memory__recall", "{not json")
    with pytest.raises(InvalidRequest, match=r"^memory__remember: arguments must be an object, got array"):
        await t.call("memory__remember", [1])
    out = await t.call("memory__remember", '{"content": "json text works"}')
    assert out["status"] == "created"
    with pytest.raises(InvalidRequest, match=r"^memory__remember: `share` must be true or false, got string"):
        await t.call("memory__remember", {"content": "x", "share": "yes"})
    with pytest.raises(InvalidRequest, match=r"^memory__remember: `confidence` must be between 0 and 1"):
        await t.call("memory__remember", {"content": "x", "confidence": float("nan")})
