"""GET /api/v1/memory/tools and POST /api/v1/memory/tools/call: the tool sets over HTTP, for a host that
runs its own model loop (OpenAI function calling, Anthropic tool use) against a remote service.

A call answers like MCP does: a contract error is tool output the model reads (`is_error`), not an HTTP
error; only the caller's credentials decide the HTTP status.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request

from tinymemory.adapters.output import ToolSet, call_tool
from tinymemory.service import deps
from tinymemory.service.auth import Caller
from tinymemory.service.models import ToolCallBody, ToolList, ToolOutputModel, ToolSpecModel, errors
from tinymemory.service.state import ServiceState

router = APIRouter(prefix="/api/v1/memory", tags=["tools"])
POLICY_PREFIX = "memory__"


async def _tool_set(state: ServiceState, caller: Caller, which: str) -> ToolSet:
    if which == "policy":
        return await state.policy_tools(caller)
    return state.core_tools(caller)


@router.get("/tools", response_model=ToolList, responses=errors(400, 401))
async def list_tools(
    request: Request, set: Literal["policy", "memory"] = Query("policy", description="which tool set")
) -> ToolList:
    """The tools the caller is offered: the memory__ set (policy) or seed 000's seven (memory). An API key
    is offered none."""
    state, caller = deps.service(request), deps.caller(request)
    caller.need_workspace("tools")
    if not caller.is_user:
        return ToolList(tools=[])
    tools = await _tool_set(state, caller, set)
    return ToolList(
        tools=[
            ToolSpecModel(name=s.name, description=s.description, parameters=s.parameters)
            for s in tools.specs()
        ]
    )


@router.post("/tools/call", response_model=ToolOutputModel, responses=errors(400, 401, 403, 413))
async def call(request: Request, body: ToolCallBody) -> ToolOutputModel:
    """Run one tool for the caller's scope; the set follows the name (memory__x: policy, else seed 000)."""
    state, caller = deps.service(request), deps.caller(request)
    which = "policy" if body.tool.startswith(POLICY_PREFIX) else "memory"
    tools = await _tool_set(state, caller, which)
    out = await call_tool(tools, body.tool, body.arguments)
    return ToolOutputModel(text=out.text, is_error=out.is_error, value=out.value, error_kind=out.error_kind)
