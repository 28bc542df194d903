"""The facade's tool sets over a real SQLite file: specs per runtime format, calls by name with JSON
arguments, bound to the Memory's namespace and reach (the memory_ set) or its identity (the memory__ set)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory import InvalidRequest, Memory, Namespace, Reach
from tinymemory.adapters import openai_tool_message
from tinymemory.api import Unsupported
from tinymemory.policy import POLICY_TOOL_NAMES, MemoryPolicy, PolicyTools
from tinymemory.tools import READ_TOOLS, TOOL_NAMES, MemoryTools

AGENT = "team:acme/agent:writer"
USER = "workspace:acme/user:dana/agent:support"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "mem.db", namespace=AGENT, embedder=None) as m:
        yield m


def test_a_tool_call_stores_and_another_finds_it(mem: Memory) -> None:
    tools = mem.tools()
    assert tools.names() == list(TOOL_NAMES)
    stored = tools.call(
        "memory_store", {"learning": {"text": "Dana drinks green tea at four", "confidence": 0.9}}
    )
    assert stored["replayed"] is False
    found = tools.call("memory_fetch", json.dumps({"query": "what does Dana drink at four"}))
    assert [h["id"] for h in found["hits"]] == [stored["id"]]
    assert "namespace" not in json.dumps(found)  # the namespace is never shown to the model
    item = mem.get([stored["id"]]).items[0]
    assert item.meta.namespace == Namespace.parse(AGENT)  # written where the Memory writes
    assert item.meta.source is not None and item.meta.source.id == "writer"
    assert mem.fetch("green tea").hits[0].item.id == stored["id"]  # the facade reads it too
    answer = tools.call("memory_recall", {"question": "What does Dana drink at four?"})
    assert "green tea" in answer["answer"]
    again = tools.call(
        "memory_store", {"learning": {"text": "Dana drinks green tea at four", "confidence": 0.9}}
    )
    assert again == {"id": stored["id"], "replayed": True}
    assert tools.call("memory_forget", {"ids": [stored["id"]]})["forgotten"] == 1
    assert tools.call("memory_fetch", {"query": "green tea"})["hits"] == []


def test_tools_read_within_the_memory_reach(tmp_path: Path) -> None:
    db = tmp_path / "mem.db"
    with Memory(db, namespace="team:acme/agent:critic", embedder=None) as critic:
        theirs = critic.tools().call("memory_store", {"learning": {"text": "the critic hates adverbs"}})
    with Memory(db, namespace=AGENT, embedder=None) as writer:
        tools = writer.tools()
        assert tools.call("memory_fetch", {"query": "adverbs"})["hits"] == []
        assert tools.call("memory_get", {"ids": [theirs["id"]]})["missing"] == [theirs["id"]]
        assert tools.call("memory_forget", {"ids": [theirs["id"]]})["skipped"] == [theirs["id"]]
        with pytest.raises(InvalidRequest, match=r"^memory_fetch: .*namespace"):
            tools.call(
                "memory_fetch", {"query": "adverbs", "filter": {"namespace": "team:acme/agent:critic"}}
            )
    auditor = Reach.subtree(Namespace.parse("team:acme"))
    with Memory(db, namespace="team:acme", reach=auditor, embedder=None) as audit:
        read_only = audit.tools(read_only=True)
        assert read_only.names() == list(READ_TOOLS)
        assert [h["id"] for h in read_only.call("memory_fetch", {"query": "adverbs"})["hits"]] == [
            theirs["id"]
        ]
        with pytest.raises(Unsupported, match=r"^memory_store: "):
            read_only.call("memory_store", {"learning": {"text": "x"}})


def test_specs_in_each_runtime_format(mem: Memory) -> None:
    tools = mem.tools()
    neutral = tools.specs()
    assert [s["name"] for s in neutral] == list(TOOL_NAMES)
    assert all(set(s) == {"name", "description", "parameters"} for s in neutral)
    fetch = next(s for s in neutral if s["name"] == "memory_fetch")
    assert fetch["parameters"]["properties"]["mode"]["enum"] == [m.value for m in mem.descriptor.fetch_modes]

    openai = tools.specs("openai")
    assert all(s["type"] == "function" and "strict" not in s["function"] for s in openai)
    assert [s["function"]["parameters"] for s in openai] == [s["parameters"] for s in neutral]
    strict = tools.specs("openai", strict=True)
    assert all(s["function"]["strict"] is True for s in strict)
    for spec in strict:
        params = spec["function"]["parameters"]
        assert params["required"] == list(params["properties"])

    anthropic = tools.specs("anthropic")
    assert [(s["name"], s["input_schema"]) for s in anthropic] == [
        (s["name"], s["parameters"]) for s in neutral
    ]

    mcp = tools.specs("mcp")
    assert [(s["name"], s["inputSchema"]) for s in mcp] == [(s["name"], s["parameters"]) for s in neutral]
    hints = {s["name"]: s["annotations"]["readOnlyHint"] for s in mcp}
    assert hints == {name: name in READ_TOOLS for name in TOOL_NAMES}
    json.dumps([neutral, openai, strict, anthropic, mcp])  # every format is plain JSON


def test_output_is_what_the_model_reads(mem: Memory) -> None:
    tools = mem.tools()
    ok = tools.output("memory_store", '{"learning": {"text": "Dana likes trains"}}')
    assert not ok.is_error and ok.value is not None and json.loads(ok.text) == ok.value
    bad = tools.output("memory_fetch", {"query": ""})
    assert bad.is_error and bad.text.startswith("error: memory_fetch: `query`") and bad.value is None
    unknown = tools.output("memory_delete_everything", {})
    assert unknown.is_error and unknown.error_kind == "invalid_request"
    message = openai_tool_message("call_1", bad)
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": bad.text}


def test_the_toolset_is_the_underlying_one(mem: Memory, tmp_path: Path) -> None:
    assert isinstance(mem.tools().toolset, MemoryTools)
    assert mem.tools(zone="Europe/Paris").toolset.zone is not None  # type: ignore[attr-defined]
    with Memory(tmp_path / "p.db", namespace=USER, embedder=None) as user:
        assert isinstance(user.tools("policy").toolset, PolicyTools)


def test_the_policy_set_remembers_and_recalls_for_the_namespace_identity(tmp_path: Path) -> None:
    with Memory(tmp_path / "mem.db", namespace=USER, embedder=None) as mem:
        tools = mem.tools("policy")
        assert tools.names() == list(POLICY_TOOL_NAMES)
        assert {s["name"] for s in tools.specs("anthropic")} == set(POLICY_TOOL_NAMES)
        remembered = tools.call("memory__remember", {"content": "I prefer aisle seats", "type": "preference"})
        assert remembered["tier"] == "user_for_agent"
        assert mem.get([remembered["id"]]).items[0].meta.namespace == Namespace.parse(USER)
        recalled = tools.call("memory__recall", {"query": "which seat should I book"})
        assert [m["id"] for m in recalled["memories"]] == [remembered["id"]]
        custom = mem.tools("policy", policy=MemoryPolicy.default(), read_only=True)
        assert "memory__remember" not in custom.names()
        with pytest.raises(Unsupported, match=r"^memory__remember: "):
            custom.call("memory__remember", {"content": "x", "type": "preference"})
    with Memory(tmp_path / "mem.db", namespace="workspace:acme/user:dana", embedder=None) as plain:
        assert plain.tools("policy").call("memory__list", {})["memories"] == []  # no agent: own tier only


BAD: list[tuple[str, tuple[object, ...], dict[str, object], str]] = [
    ("tools", ("vector",), {}, "tools: `toolset` `vector` is not a tool set"),
    ("tools", (), {"read_only": "yes"}, "tools: `read_only`"),
    ("tools", (), {"zone": "Mars/Olympus"}, "tools: `zone`"),
    ("tools", (), {"zone": 5}, "tools: `zone`"),
    ("tools", (), {"policy": MemoryPolicy.default()}, "tools: `policy` applies to the policy tool set only"),
    ("tools", ("policy",), {}, "tools: `toolset` `policy` needs this Memory's namespace to name a user"),
    ("tools", (), {"bogus": 1}, "tools: `bogus` is not a known argument"),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "expected"), BAD, ids=[b[3] for b in BAD])
def test_bad_tool_set_arguments(
    mem: Memory, method: str, args: tuple[object, ...], kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        getattr(mem, method)(*args, **kwargs)


def test_bad_policy_arguments(tmp_path: Path) -> None:
    with Memory(tmp_path / "mem.db", namespace=USER, embedder=None) as mem:
        with pytest.raises(InvalidRequest, match=r"^tools: `policy` must be a MemoryPolicy"):
            mem.tools("policy", policy={"types": []})  # type: ignore[arg-type]
        with pytest.raises(InvalidRequest, match=r"^tools: `zone` applies to the memory tool set only"):
            mem.tools("policy", zone="UTC")


TOOL_BAD: list[tuple[str, tuple[object, ...], dict[str, object], str]] = [
    ("specs", ("yaml",), {}, "specs: `format` `yaml` is not a format"),
    ("specs", ("anthropic",), {"strict": True}, "specs: `strict` applies to the openai format only"),
    ("specs", ("openai",), {"strict": "yes"}, "specs: `strict`"),
    ("call", (), {}, "call: `name` is required"),
    ("call", ("memory_nuke",), {}, "call: `name` `memory_nuke` is not a memory tool"),
    ("call", (5,), {}, "call: `name`"),
    ("call", ("memory_store", "{not json"), {}, "memory_store: arguments are not valid json"),
    ("call", ("memory_store", [1]), {}, "memory_store: arguments must be an object"),
    ("call", ("memory_store", {"learning": {"text": "x"}, "reach": "all"}), {}, "memory_store: "),
    ("call", ("memory_fetch", {"query": "x", "limit": 500}), {}, "memory_fetch: `limit`"),
    ("call", ("memory_fetch", {}), {"extra": 1}, "call: `extra` is not a known argument"),
    ("output", (), {}, "output: `name` is required"),
    ("names", (1,), {}, "names: takes 0 positional"),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "expected"), TOOL_BAD, ids=[b[3] for b in TOOL_BAD])
def test_bad_tool_calls_write_nothing(
    mem: Memory, method: str, args: tuple[object, ...], kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        getattr(mem.tools(), method)(*args, **kwargs)
    assert mem.list().items == ()
