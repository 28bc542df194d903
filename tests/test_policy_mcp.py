"""End to end: `tinymemory mcp --tools policy` as a subprocess, driven by the official MCP client, and the
memory__ set through the OpenAI and Anthropic adapters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from engines import is_postgres, make_engine, store_target
from tinymemory.adapters import (
    anthropic_tool,
    anthropic_tool_result,
    call_tool,
    openai_tool,
    openai_tool_message,
)
from tinymemory.adapters.mcp import mcp_tool
from tinymemory.api import GetRequest, Namespace
from tinymemory.policy import POLICY_TOOL_NAMES, Identity, MemoryPolicy, PolicyTools, render_guidance

TIMEOUT_S = 60
POLICY_YAML = """\
kind: MemoryPolicy
metadata: {name: desk}
spec:
  schema:
    types:
      - {name: preference, tiers: [user, user_for_agent]}
      - {name: general}
  dedup: {requireAboutForKinds: [preference]}
  recall: {inlineThresholdBytes: 256}
  toolGuidance: {notes: Keep memories short.}
"""


def server(db: Path, *flags: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "tinymemory",
            "mcp",
            "--db",
            store_target(db),
            "--no-embedder",
            "--tools",
            "policy",
            *flags,
        ],
        env=env,
    )


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_policy_tools_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(POLICY_YAML, encoding="utf-8")
    flags = ("--workspace", "acme", "--user", "dana", "--agent", "helper", "--policy", str(policy_file))
    with anyio.fail_after(TIMEOUT_S):
        async with Client(server(db, *flags)) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(POLICY_TOOL_NAMES)
            expected = {t["name"]: t for t in render_guidance(MemoryPolicy.load(policy_file))["tools"]}
            for tool in listed.tools:
                assert tool.input_schema == expected[tool.name]["parameters"]
                assert tool.description == expected[tool.name]["description"]
                assert tool.description.endswith("Notes for this workspace:\nKeep memories short.")
            hints = {t.name: t.annotations.read_only_hint for t in listed.tools if t.annotations}
            assert hints == {
                "memory__remember": False,
                "memory__recall": True,
                "memory__open": True,
                "memory__list": True,
                "memory__forget": False,
            }

            saved = await client.call_tool(
                "memory__remember",
                {
                    "content": "Dana prefers tea.",
                    "type": "preference",
                    "about_kind": "drink",
                    "about_key": "dana",
                },
            )
            assert not saved.is_error, text_of(saved)
            out: dict[str, Any] = saved.structured_content
            assert out["tier"] == "user_for_agent" and json.loads(text_of(saved)) == out

            long_body = "Dana's tea order: " + "oolong, " * 60
            big = await client.call_tool("memory__remember", {"content": long_body})
            recalled = await client.call_tool("memory__recall", {"query": "tea"})
            memories = recalled.structured_content["memories"]
            by_id = {m["id"]: m for m in memories}
            assert by_id[out["id"]]["content"] == "Dana prefers tea."
            preview = by_id[big.structured_content["id"]]
            assert preview["content"] == "" and preview["metadata"]["has_full_body"] is True
            opened = await client.call_tool("memory__open", {"memory_id": big.structured_content["id"]})
            assert opened.structured_content["content"] == long_body

            missing = await client.call_tool("memory__open", {"memory_id": "nope"})
            assert not missing.is_error and missing.structured_content["status"] == "not_found"
            refused = await client.call_tool("memory__remember", {"content": "x", "type": "preference"})
            assert refused.is_error
            assert text_of(refused).startswith(
                "error: memory__remember: `about_kind` and `about_key` are required"
            )
            escape = await client.call_tool("memory__list", {"namespace": "workspace:globex"})
            assert escape.is_error and "is fixed by the host" in text_of(escape)

    async with make_engine(db, embedder=None) as engine:
        got = await engine.get(GetRequest(ids=(out["id"],)))
        assert got.items[0].namespace == Namespace.parse("workspace:acme/user:dana/agent:helper")


def test_policy_flags_are_required_and_checked(tmp_path: Path) -> None:
    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "tinymemory",
                "mcp",
                "--db",
                store_target(tmp_path / "m.db"),
                "--no-embedder",
                *flags,
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )

    no_user = run("--tools", "policy", "--workspace", "acme")
    assert no_user.returncode == 2
    assert json.loads(no_user.stderr) == {
        "error": "invalid_request",
        "message": "mcp: `--user` is required with `--tools policy`",
    }
    bad_policy = tmp_path / "bad.yaml"
    bad_policy.write_text("gate: {minDistinctSubjects: 1}\n", encoding="utf-8")
    refused = run("--tools", "policy", "--workspace", "acme", "--user", "dana", "--policy", str(bad_policy))
    assert refused.returncode == 2
    assert json.loads(refused.stderr)["message"].startswith("policy: `gate.minDistinctSubjects`")
    bad_name = run("--tools", "policy", "--workspace", "acme", "--user", "dana/agent:x")
    assert bad_name.returncode == 2 and "identity: `user`" in json.loads(bad_name.stderr)["message"]
    if not is_postgres():
        assert not (tmp_path / "m.db").exists()  # nothing opened on a refusal


async def test_openai_and_anthropic_adapters_serve_the_memory_set(tmp_path: Path) -> None:
    async with make_engine(tmp_path / "m.db", embedder=None) as engine:
        t = PolicyTools.for_identity(engine, Identity("acme", "dana", verified=True))
        for spec in t.specs():
            assert openai_tool(spec, strict=True)["function"]["name"] == spec.name
            assert anthropic_tool(spec)["input_schema"] == spec.parameters
            assert mcp_tool(spec).name == spec.name
        ok = await call_tool(t, "memory__remember", '{"content": "Dana likes jazz."}')
        assert not ok.is_error and ok.value is not None and ok.value["tier"] == "user"
        assert openai_tool_message("c1", ok)["content"] == ok.text
        bad = await call_tool(t, "memory__recall", {"query": "jazz", "as_of": "last week"})
        assert bad.is_error and bad.error_kind == "invalid_request"
        assert anthropic_tool_result("u1", bad)["is_error"] is True
        # a strict runtime sends null for every optional field: read as "not given"
        strict_call = {name: None for name in t.specs()[1].parameters["properties"]}
        strict_call["query"] = "jazz"
        found = await call_tool(t, "memory__recall", strict_call)
        assert not found.is_error and found.value is not None and found.value["memories"]
