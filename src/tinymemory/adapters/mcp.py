"""MCP: tools as MCP tool definitions, and a low-level MCP server serving one scope's tools.

The low-level server is used because the tools already carry finished JSON Schemas; the SDK's
high-level server would derive schemas from Python signatures instead.
"""

from __future__ import annotations

import copy
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from tinymemory import __version__
from tinymemory.adapters.output import ToolOutput, call_tool
from tinymemory.tools import MEMORY_STORE, READ_TOOLS, MemoryTools, ToolSpec

SERVER_NAME = "tinymemory"
INSTRUCTIONS = (
    "Long-term memory. Recall or fetch before answering questions about past work, people or "
    "preferences; store durable learnings worth keeping."
)


def mcp_tool(spec: ToolSpec) -> types.Tool:
    """name -> name, description -> description, parameters -> inputSchema."""
    read_only = spec.name in READ_TOOLS
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=copy.deepcopy(spec.parameters),
        annotations=types.ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else spec.name != MEMORY_STORE,
            idempotent_hint=True if spec.name == MEMORY_STORE or read_only else None,
            open_world_hint=False,
        ),
    )


def mcp_result(output: ToolOutput) -> types.CallToolResult:
    """Text content either way; the structured result too on success; `is_error` on a contract error."""
    return types.CallToolResult(
        content=[types.TextContent(text=output.text)],
        structured_content=output.value,
        is_error=output.is_error,
    )


def mcp_server(tools: MemoryTools, name: str = SERVER_NAME) -> Server[Any]:
    """A server listing `tools.specs()` and answering tools/call through `MemoryTools.call`."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(s) for s in tools.specs()])

    async def call(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return mcp_result(await call_tool(tools, params.name, params.arguments))

    return Server(
        name,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


async def serve_stdio(tools: MemoryTools, name: str = SERVER_NAME) -> None:
    """Serve over this process's stdin/stdout until the client closes the connection."""
    server = mcp_server(tools, name)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
