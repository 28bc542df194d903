"""`tinymemory mcp --read-only`: the flag alone (no environment variable) withholds every write tool."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from tinymemory.api import ItemKind, ItemMeta, ListRequest, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import READ_TOOLS, TOOL_NAMES

TIMEOUT_S = 60


def server(db: Path, *flags: str) -> StdioServerParameters:
    # env holds nothing of ours: TINYMEMORY_READ_ONLY is unset, so only the flag can make it read-only
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tinymemory", "mcp", "--db", str(db), "--no-embedder", *flags],
        env={},
    )


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_the_read_only_flag_lists_no_write_tool_and_refuses_a_store(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    async with SqliteEngine(db, embedder=None) as engine:
        meta = ItemMeta(namespace=Namespace.root())
        await engine.store(NewItem(kind=ItemKind.LEARNING, text="The staging database is orchid.", meta=meta))

    with anyio.fail_after(TIMEOUT_S):
        async with Client(server(db, "--read-only")) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == list(READ_TOOLS)
            assert set(TOOL_NAMES) - set(names) == {"memory_store", "memory_forget"}

            refused = await client.call_tool("memory_store", {"learning": {"text": "nope"}})
            assert refused.is_error and "read-only" in text_of(refused)
            forget = await client.call_tool("memory_forget", {"ids": ["m_0123456789abcdef01234567"]})
            assert forget.is_error

            read = await client.call_tool("memory_fetch", {"query": "staging database"})
            assert not read.is_error, text_of(read)
            assert [h["text"] for h in read.structured_content["hits"]] == ["The staging database is orchid."]

    async with SqliteEngine(db, embedder=None) as engine:
        listed = await engine.list(ListRequest())
        assert [i.text for i in listed.items] == ["The staging database is orchid."]
