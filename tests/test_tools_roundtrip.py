"""Every tool and every argument against the SQLite engine, through MemoryTools.call only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engines import make_engine
from tinymemory.api import (
    EngineDescriptor,
    FetchMode,
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    Namespace,
    NewItem,
    StoreResult,
    Unsupported,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import MemoryTools
from tinymemory.tools.args import read_refers_to

WRITER = Namespace.parse("team:acme/agent:writer")


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "memory.db", embedder=None)
    yield eng
    await eng.close()


@pytest.fixture
def tools(engine: SqliteEngine) -> MemoryTools:
    return MemoryTools(engine).placed_at(WRITER).in_zone("UTC")


async def stored(engine: SqliteEngine, item_id: str) -> Any:
    got = await engine.get(GetRequest(ids=(item_id,)))
    assert got.items, f"{item_id} was not stored"
    return got.items[0]


def no_namespace(value: dict[str, Any]) -> None:
    text = json.dumps(value)
    assert "namespace" not in text and "team:acme" not in text


async def test_store_learning_with_every_argument(tools: MemoryTools, engine: SqliteEngine) -> None:
    before = datetime.now(UTC)
    args = {
        "learning": {
            "text": "The user prefers tabs over spaces.",
            "learning_kind": "preference",
            "confidence": 0.95,
            "evidence": ["m_0123", "said so on Monday"],
        },
        "tags": ["style", " editor ", "style"],
    }
    first = await tools.call("memory_store", args)
    assert first["replayed"] is False and first["id"].startswith("m_")
    again = await tools.call("memory_store", {**args, "tags": ["other"]})
    assert again == {"id": first["id"], "replayed": True}
    item = await stored(engine, first["id"])
    assert item.kind is ItemKind.LEARNING
    assert item.meta.namespace == WRITER
    assert (item.meta.source.kind, item.meta.source.id) == ("agent", "writer")
    assert item.meta.learning_kind == "preference"
    assert item.confidence == pytest.approx(0.95)
    assert item.meta.evidence == ("m_0123", "said so on Monday")
    assert item.meta.tags == ("style", "editor")
    assert before - timedelta(seconds=1) <= item.meta.observed_at <= datetime.now(UTC) + timedelta(seconds=1)


async def test_store_learning_defaults(tools: MemoryTools, engine: SqliteEngine) -> None:
    out = await tools.call("memory_store", {"learning": {"text": "Deploys happen on Fridays."}})
    item = await stored(engine, out["id"])
    assert item.meta.learning_kind == "fact"
    assert item.confidence == pytest.approx(0.8)
    assert item.meta.tags == ()


async def test_store_document_and_conversation(tools: MemoryTools, engine: SqliteEngine) -> None:
    doc = await tools.call("memory_store", {"document": {"title": "Runbook", "text": "Restart the queue."}})
    item = await stored(engine, doc["id"])
    assert (item.kind, item.meta.title, item.text) == (ItemKind.DOCUMENT, "Runbook", "Restart the queue.")
    untitled = await tools.call("memory_store", {"document": {"text": "No title here."}})
    assert (await stored(engine, untitled["id"])).meta.title is None

    turns = [{"role": "user", "text": "Where is the runbook?"}, {"role": "assistant", "text": "In the wiki."}]
    conv = await tools.call("memory_store", {"conversation": {"turns": turns}, "tags": ["support"]})
    item = await stored(engine, conv["id"])
    assert item.kind is ItemKind.CONVERSATION
    assert item.text == "user: Where is the runbook?\nassistant: In the wiki."
    assert item.confidence is None and item.meta.tags == ("support",)


async def test_store_without_agent_segment_has_anonymous_agent_source(engine: SqliteEngine) -> None:
    out = await MemoryTools(engine).call("memory_store", {"learning": {"text": "Root memory."}})
    item = await stored(engine, out["id"])
    assert item.meta.namespace.is_root
    assert (item.meta.source.kind, item.meta.source.id) == ("agent", None)


async def test_store_shape_rules(tools: MemoryTools) -> None:
    with pytest.raises(InvalidRequest, match="exactly one of `learning`, `document` or `conversation`"):
        await tools.call("memory_store", {"tags": ["x"]})
    with pytest.raises(InvalidRequest, match=r"got `learning`, `document`"):
        await tools.call("memory_store", {"learning": {"text": "a"}, "document": {"text": "b"}})
    with pytest.raises(InvalidRequest, match=r"memory_store: `learning.learning_kind` `memo` is not"):
        await tools.call("memory_store", {"learning": {"text": "a", "learning_kind": "memo"}})
    with pytest.raises(InvalidRequest, match=r"memory_store: `learning.confidence` must be between 0 and 1"):
        await tools.call("memory_store", {"learning": {"text": "a", "confidence": 1.5}})
    with pytest.raises(InvalidRequest, match=r"memory_store: `conversation.turns\[1\].role` is required"):
        await tools.call(
            "memory_store", {"conversation": {"turns": [{"role": "u", "text": "a"}, {"text": "b"}]}}
        )
    with pytest.raises(InvalidRequest, match=r"memory_store: `conversation.turns` must hold between 1"):
        await tools.call("memory_store", {"conversation": {"turns": []}})
    with pytest.raises(InvalidRequest, match=r"memory_store: `document.text` must not be blank"):
        await tools.call("memory_store", {"document": {"text": "   "}})


async def seed_notes(tools: MemoryTools, n: int) -> list[str]:
    ids = []
    for i in range(n):
        out = await tools.call(
            "memory_store",
            {
                "learning": {"text": f"release checklist step {i} for the billing service"},
                "tags": [f"t{i % 2}"],
            },
        )
        ids.append(out["id"])
    return ids


async def test_fetch_every_argument_and_cursor_pagination(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 5)
    await tools.call("memory_store", {"document": {"text": "billing service architecture overview"}})
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        args: dict[str, Any] = {
            "query": "billing checklist",
            "mode": "lexical",
            "filter": {"kinds": ["learning"], "sources": ["agent"]},
            "limit": 2,
        }
        if cursor:
            args["cursor"] = cursor
        page = await tools.call("memory_fetch", args)
        pages += 1
        for hit in page["hits"]:
            assert hit["kind"] == "learning"
            assert hit["score"] == round(hit["score"], 4)
            assert hit["confidence"] == 0.8
            assert hit["meta"]["source"] == {"kind": "agent", "id": "writer"}
            assert set(hit) == {"id", "kind", "text", "score", "confidence", "meta"}
            no_namespace(hit)
        seen += [h["id"] for h in page["hits"]]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert pages == 3 and sorted(seen) == sorted(ids) and len(set(seen)) == 5

    tagged = await tools.call(
        "memory_fetch", {"query": "billing", "filter": {"tags_any": ["t1"]}, "limit": 50}
    )
    assert {h["id"] for h in tagged["hits"]} == {ids[1], ids[3]}
    assert "next_cursor" not in tagged
    hinted = await tools.call(
        "memory_fetch", {"query": "billing", "refers_to": {"from": "2024-05-08", "to": "2024-05-09"}}
    )
    assert len(hinted["hits"]) == 6  # a time hint boosts, never drops


async def test_fetch_argument_errors(tools: MemoryTools) -> None:
    with pytest.raises(
        InvalidRequest, match=r"memory_fetch: `mode` `semantic` is not a fetch mode served here"
    ):
        await tools.call("memory_fetch", {"query": "x", "mode": "semantic"})
    with pytest.raises(InvalidRequest, match=r"memory_fetch: `query` is required"):
        await tools.call("memory_fetch", {})
    with pytest.raises(InvalidRequest, match=r"memory_fetch: `limit` must be between 1 and 50, got 51"):
        await tools.call("memory_fetch", {"query": "x", "limit": 51})
    with pytest.raises(InvalidRequest, match=r"memory_fetch: `limit` must be an integer"):
        await tools.call("memory_fetch", {"query": "x", "limit": True})
    with pytest.raises(InvalidRequest, match=r"memory_fetch: `refers_to.to` is before `refers_to.from`"):
        await tools.call(
            "memory_fetch", {"query": "x", "refers_to": {"from": "2024-05-09", "to": "2024-05-08"}}
        )
    with pytest.raises(InvalidRequest, match=r"memory_fetch: `refers_to.from` `May 8` is not a date"):
        await tools.call("memory_fetch", {"query": "x", "refers_to": {"from": "May 8"}})


async def test_list_every_argument_and_cursor_pagination(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 5)
    collected: list[str] = []
    page = await tools.call("memory_list", {"limit": 2})
    while True:
        collected += [i["id"] for i in page["items"]]
        for it in page["items"]:
            assert "score" not in it
            no_namespace(it)
        if "next_cursor" not in page:
            break
        page = await tools.call("memory_list", {"limit": 2, "cursor": page["next_cursor"]})
    assert sorted(collected) == sorted(ids) and len(collected) == 5
    assert collected == list(reversed(ids))  # newest first

    now = datetime.now(UTC)
    window = {
        "observed_after": (now - timedelta(hours=1)).isoformat(),
        "observed_before": (now + timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
    }
    assert len((await tools.call("memory_list", {"filter": window, "limit": 50}))["items"]) == 5
    future = {"observed_after": (now + timedelta(hours=1)).isoformat()}
    assert (await tools.call("memory_list", {"filter": future}))["items"] == []
    assert len((await tools.call("memory_list", {}))["items"]) == 5  # default limit 10
    kinds = await tools.call("memory_list", {"filter": {"kinds": ["document"]}})
    assert kinds == {"items": []}
    with pytest.raises(InvalidRequest, match=r"memory_list: `filter.kinds` `memo` is not an item kind"):
        await tools.call("memory_list", {"filter": {"kinds": ["memo"]}})
    with pytest.raises(
        InvalidRequest, match=r"memory_list: `filter.observed_after` `yesterday` is not an RFC"
    ):
        await tools.call("memory_list", {"filter": {"observed_after": "yesterday"}})
    with pytest.raises(InvalidRequest, match=r"memory_list: `filter.observed_before` must be later"):
        await tools.call("memory_list", {"filter": {**window, "observed_before": window["observed_after"]}})


async def test_filter_string_fields_narrow(tools: MemoryTools, engine: SqliteEngine) -> None:
    meta = ItemMeta(
        namespace=WRITER,
        workspace="w1",
        folder="docs",
        file_path="docs/a.md",
        repo="acme/site",
        url="https://example.org/a",
        thread_id="th-1",
        agent_id="writer",
    )
    res: StoreResult = await engine.store(NewItem(ItemKind.CHUNK, "alpha chunk", meta))
    await engine.store(NewItem(ItemKind.CHUNK, "beta chunk", ItemMeta(namespace=WRITER)))
    for field in ("workspace", "folder", "file_path", "repo", "url", "thread_id", "agent_id"):
        value = getattr(meta, field)
        out = await tools.call("memory_list", {"filter": {field: value}})
        assert [i["id"] for i in out["items"]] == [res.id], field
    out = await tools.call("memory_get", {"ids": [res.id]})
    assert out["items"][0]["meta"] == {
        "file_path": "docs/a.md",
        "url": "https://example.org/a",
        "thread_id": "th-1",
        "observed_at": out["items"][0]["meta"]["observed_at"],
    }


async def test_get_returns_items_and_missing(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 2)
    out = await tools.call("memory_get", {"ids": [ids[0], "m_nope", ids[1], ids[0]]})
    got = [i["id"] for i in out["items"]]
    assert sorted(got) == sorted(ids) and len(got) == 2
    assert out["missing"] == ["m_nope"]
    with pytest.raises(InvalidRequest, match=r"memory_get: `ids` must list between 1 and 200 ids, got 201"):
        await tools.call("memory_get", {"ids": [f"m_{i}" for i in range(201)]})
    with pytest.raises(InvalidRequest, match=r"memory_get: `ids` is required"):
        await tools.call("memory_get", {})


async def test_explore_facets(tools: MemoryTools) -> None:
    await seed_notes(tools, 5)
    await tools.call("memory_store", {"document": {"text": "untagged doc"}})
    tags = await tools.call("memory_explore", {"facet": "tag"})
    assert tags["facet"] == "tag"
    assert {b["value"]: b["count"] for b in tags["buckets"]} == {"t0": 3, "t1": 2}
    assert (tags["total"], tags["missing"], tags["more_buckets"], tags["truncated"]) == (6, 1, False, False)
    one = await tools.call("memory_explore", {"facet": "tag", "limit": 1})
    assert one["buckets"] == [{"value": "t0", "count": 3}] and one["more_buckets"] is True
    kinds = await tools.call("memory_explore", {"facet": "kind", "filter": {"kinds": ["document"]}})
    assert kinds["buckets"] == [{"value": "document", "count": 1}] and kinds["total"] == 1
    with pytest.raises(InvalidRequest, match=r"memory_explore: `facet` `namespace` is not a facet"):
        await tools.call("memory_explore", {"facet": "namespace"})


async def test_recall_every_argument(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 3)
    out = await tools.call(
        "memory_recall",
        {
            "question": "What is on the billing release checklist?",
            "filter": {"tags_any": ["t0"]},
            "limit": 5,
            "instructions": "Answer in one line.",
            "refers_to": {"from": "2024-05-08"},
        },
    )
    assert isinstance(out["answer"], str) and out["answer"]
    cited = [c["id"] for c in out["citations"]]
    assert cited and set(cited) <= {ids[0], ids[2]}
    for c in out["citations"]:
        assert c["score"] == round(c["score"], 4)
        no_namespace(c)
    with pytest.raises(InvalidRequest, match=r"memory_recall: `question` must not be blank"):
        await tools.call("memory_recall", {"question": "  "})


async def test_refers_to_boosts_the_days_asked_about(tools: MemoryTools, engine: SqliteEngine) -> None:
    def on(day: int) -> ItemMeta:
        start = datetime(2024, 5, day, 9, tzinfo=UTC)
        return ItemMeta(namespace=WRITER, event_from=start, event_to=start + timedelta(hours=1))

    a = await engine.store(NewItem(ItemKind.LEARNING, "standup notes about the payment outage", on(6)))
    b = await engine.store(NewItem(ItemKind.LEARNING, "standup notes about the payment rollout", on(8)))
    for day, first in (("2024-05-06", a.id), ("2024-05-08", b.id)):
        out = await tools.call("memory_fetch", {"query": "standup notes payment", "refers_to": {"from": day}})
        assert out["hits"][0]["id"] == first
        assert {h["id"] for h in out["hits"]} == {a.id, b.id}


def test_refers_to_reads_local_days_in_the_host_zone() -> None:
    paris = ZoneInfo("Europe/Paris")
    hint = read_refers_to("memory_fetch", {"refers_to": {"from": "2024-05-08", "to": "2024-05-09"}}, paris)
    assert hint is not None
    assert hint.start == datetime(2024, 5, 7, 22, tzinfo=UTC)
    assert hint.end == datetime(2024, 5, 9, 22, tzinfo=UTC)
    one_day = read_refers_to("memory_fetch", {"refers_to": {"from": "2024-01-01"}}, UTC)
    assert one_day is not None and one_day.end - one_day.start == timedelta(days=1)


async def test_forget_by_ids_and_by_filter(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 4)
    out = await tools.call("memory_forget", {"ids": [ids[0], "m_unknown"]})
    assert out == {"forgotten": 1, "skipped": ["m_unknown"]}
    assert (await tools.call("memory_get", {"ids": [ids[0]]}))["missing"] == [ids[0]]
    again = await tools.call("memory_forget", {"ids": [ids[0]]})
    assert again == {"forgotten": 0, "skipped": [ids[0]]}
    by_tag = await tools.call("memory_forget", {"filter": {"tags_any": ["t1"]}})
    assert by_tag == {"forgotten": 2, "skipped": []}
    left = await tools.call("memory_list", {})
    assert [i["id"] for i in left["items"]] == [ids[2]]
    with pytest.raises(InvalidRequest, match=r"memory_forget: `filter` must set at least one field"):
        await tools.call("memory_forget", {"filter": {}})
    with pytest.raises(InvalidRequest, match=r"memory_forget: give either `ids` or `filter`, not both"):
        await tools.call("memory_forget", {"ids": [ids[2]], "filter": {"kinds": ["learning"]}})
    with pytest.raises(InvalidRequest, match=r"memory_forget: give `ids` or a non-empty `filter`"):
        await tools.call("memory_forget", {})


async def test_results_are_json_ready_and_arguments_may_be_json_text(tools: MemoryTools) -> None:
    ids = await seed_notes(tools, 2)
    for name, args in (
        ("memory_list", '{"limit": 1}'),
        ("memory_get", json.dumps({"ids": ids})),
        ("memory_fetch", {"query": "billing", "limit": 1, "cursor": None, "filter": None}),
        ("memory_explore", {"facet": "source"}),
        ("memory_list", None),
    ):
        out = await tools.call(name, args)
        assert json.loads(json.dumps(out)) == out
    with pytest.raises(InvalidRequest, match=r"memory_list: arguments are not valid json"):
        await tools.call("memory_list", "{not json")
    with pytest.raises(InvalidRequest, match=r"memory_list: arguments must be an object, got array"):
        await tools.call("memory_list", [1, 2])
    with pytest.raises(InvalidRequest, match=r"`memory_delete` is not a memory tool"):
        await tools.call("memory_delete", {})


class NoFetchEngine:
    """A real engine whose descriptor serves no fetch mode (as an engine without search would)."""

    def __init__(self, inner: SqliteEngine) -> None:
        self._inner = inner

    @property
    def descriptor(self) -> EngineDescriptor:
        return EngineDescriptor("nofetch", "0", ())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def test_engine_without_fetch_modes_has_no_fetch_tool(engine: SqliteEngine) -> None:
    tools = MemoryTools(NoFetchEngine(engine))  # type: ignore[arg-type]
    assert "memory_fetch" not in tools.names()
    with pytest.raises(Unsupported, match=r"memory_fetch: this engine serves no fetch mode"):
        await tools.call("memory_fetch", {"query": "x"})


@pytest.mark.parametrize("modes", [("lexical",)])
async def test_fetch_default_mode_is_the_engines(tools: MemoryTools, modes: Sequence[str]) -> None:
    await seed_notes(tools, 1)
    assert [m.value for m in tools.engine.descriptor.fetch_modes] == list(modes)
    spec = next(s for s in tools.specs() if s.name == "memory_fetch")
    assert spec.parameters["properties"]["mode"]["enum"] == list(modes)
    assert (await tools.call("memory_fetch", {"query": "billing"}))["hits"]


async def test_hybrid_is_the_default_when_served(tmp_path: Path) -> None:
    async with make_engine(tmp_path / "m.db", embedder="default") as engine:
        if engine.descriptor.fetch_modes != (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID):
            pytest.skip("the MiniLM weights package is not installed")
        tools = MemoryTools(engine)
        spec = next(s for s in tools.specs() if s.name == "memory_fetch")
        assert spec.parameters["properties"]["mode"]["enum"] == ["lexical", "semantic", "hybrid"]
        stored = await tools.call("memory_store", {"learning": {"text": "The cat sleeps on the sofa."}})
        for args in ({"query": "where does the pet nap"}, {"query": "pet nap", "mode": "semantic"}):
            hits = (await tools.call("memory_fetch", args))["hits"]
            assert hits and hits[0]["id"] == stored["id"]
