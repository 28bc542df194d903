"""End to end: `tinymemory mcp` as a subprocess, driven by the official MCP client over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from tinymemory.api import FetchMode, GetRequest, Namespace
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import READ_TOOLS, TOOL_NAMES, build_specs

TIMEOUT_S = 60


def server(db: Path, *flags: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tinymemory", "mcp", "--db", str(db), "--no-embedder", *flags],
        env=env,
    )


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_list_store_fetch_and_error_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with anyio.fail_after(TIMEOUT_S):
        async with Client(server(db, TINYMEMORY_PLACE="team:acme/agent:writer")) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(TOOL_NAMES)
            specs = {s.name: s.parameters for s in build_specs((FetchMode.LEXICAL,), writes=True)}
            for tool in listed.tools:
                assert tool.input_schema == specs[tool.name]

            stored = await client.call_tool(
                "memory_store",
                {"learning": {"text": "The staging database is called orchid."}, "tags": ["infra"]},
            )
            assert not stored.is_error, text_of(stored)
            out: dict[str, Any] = stored.structured_content
            assert out["replayed"] is False and json.loads(text_of(stored)) == out

            fetched = await client.call_tool("memory_fetch", {"query": "staging database", "limit": 3})
            assert not fetched.is_error, text_of(fetched)
            hits = fetched.structured_content["hits"]
            assert [h["id"] for h in hits] == [out["id"]]
            assert hits[0]["meta"]["source"] == {"kind": "agent", "id": "writer"}

            bad = await client.call_tool("memory_list", {"namespace": "team:globex"})
            assert bad.is_error
            assert text_of(bad).startswith("error: memory_list: `namespace` is fixed by the host")
            unknown = await client.call_tool("memory_delete", {})
            assert unknown.is_error and "is not a memory tool" in text_of(unknown)
            bad_limit = await client.call_tool("memory_list", {"limit": 0})
            assert bad_limit.is_error and "`limit` must be between 1 and 50" in text_of(bad_limit)

    async with SqliteEngine(db, embedder=None) as engine:
        got = await engine.get(GetRequest(ids=(out["id"],)))
        assert got.items[0].namespace == Namespace.parse("team:acme/agent:writer")


async def test_read_only_scope_from_the_environment(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with anyio.fail_after(TIMEOUT_S):
        params = server(
            db, "--reach", "subtree(team:acme)", TINYMEMORY_PLACE="team:acme", TINYMEMORY_READ_ONLY="1"
        )
        async with Client(params) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(READ_TOOLS)
            refused = await client.call_tool("memory_store", {"learning": {"text": "nope"}})
            assert refused.is_error and "read-only" in text_of(refused)
            listed_items = await client.call_tool("memory_list", {})
            assert listed_items.structured_content == {"items": []}
