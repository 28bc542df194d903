"""MCP: tools as MCP tool definitions, and a low-level MCP server serving one scope's tools (seed 000's
seven or one identity's memory__ set).

The low-level server is used because the tools already carry finished JSON Schemas; the SDK's
high-level server would derive schemas from Python signatures instead.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from tinymemory._version import __version__
from tinymemory.adapters.output import ToolOutput, ToolSet, call_tool
from tinymemory.tools import ToolSpec

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

SERVER_NAME = "tinymemory"
INSTRUCTIONS = (
    "Long-term memory. Recall or fetch before answering questions about past work, people or "
    "preferences; store durable learnings worth keeping."
)
POLICY_INSTRUCTIONS = (
    "Long-term memory of this user. Recall before answering questions about the user, their work or "
    "their preferences; remember stable facts and preferences worth keeping."
)


def mcp_tool(spec: ToolSpec) -> types.Tool:
    """name -> name, description -> description, parameters -> inputSchema; the annotations follow the
    spec's hints (read-only, or a write that deletes nothing and is safe to repeat, or any other)."""
    read_only, replay_safe = spec.hints.read_only, spec.hints.replay_safe
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=copy.deepcopy(spec.parameters),
        annotations=types.ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else not replay_safe,
            idempotent_hint=True if replay_safe or read_only else None,
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


def mcp_server(tools: ToolSet, name: str = SERVER_NAME, instructions: str = INSTRUCTIONS) -> Server[Any]:
    """A server listing `tools.specs()` and answering tools/call through `tools.call`."""

    async def the_tools(_ctx: ServerRequestContext[Any, Any]) -> ToolSet:
        return tools

    return per_request_server(the_tools, name, instructions)


def per_request_server(
    tools_for: Callable[[ServerRequestContext[Any, Any]], Awaitable[ToolSet | None]],
    name: str,
    instructions: str,
    refusal: Callable[[str], ToolOutput] | None = None,
) -> Server[Any]:
    """A server whose handlers ask `tools_for` for the tools of each request. Where it answers None,
    the list is empty and a call answers `refusal(tool name)`."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = await tools_for(ctx)
        specs = tools.specs() if tools is not None else []
        return types.ListToolsResult(tools=[mcp_tool(s) for s in specs])

    async def call(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tools = await tools_for(ctx)
        if tools is None:
            if refusal is None:
                raise RuntimeError(f"{name}: no tools for this request and no refusal to give")
            return mcp_result(refusal(params.name))
        return mcp_result(await call_tool(tools, params.name, params.arguments))

    return Server(
        name,
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


async def serve_stdio(tools: ToolSet, name: str = SERVER_NAME, instructions: str = INSTRUCTIONS) -> None:
    """Serve over this process's stdin/stdout until the client closes the connection."""
    server = mcp_server(tools, name, instructions)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
