"""GET /api/v1/memory/tools and POST /api/v1/memory/tools/call: the tool sets over HTTP, for a host that
runs its own model loop (OpenAI function calling, Anthropic tool use) against a remote service.

A call answers like MCP does: a contract error is tool output the model reads (`is_error`), not an HTTP
error; only the caller's credentials and a malformed body decide the HTTP status.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from tinymemory.adapters.output import ToolSet, call_tool
from tinymemory.policy import log_refused
from tinymemory.service import deps
from tinymemory.service.auth import Caller
from tinymemory.service.models import ToolCallBody, ToolList, ToolOutputModel, ToolSpecModel, errors
from tinymemory.service.state import ServiceState

router = APIRouter(prefix="/api/v1/memory", tags=["tools"], dependencies=[Depends(deps.bearer)])
POLICY_PREFIX = "memory__"
SETS = ("policy", "memory")
LIST_OP = "tools"
CALL_OP = "tools call"


async def _tool_set(state: ServiceState, caller: Caller, which: str) -> ToolSet:
    if which == "policy":
        return await state.policy_tools(caller)
    return state.core_tools(caller)


@router.get(
    "/tools",
    name=LIST_OP,
    operation_id="tools_list",
    response_model=ToolList,
    responses=errors(400, 401),
    openapi_extra={
        "parameters": [
            deps.query_parameter(
                "set",
                {"type": "string", "enum": list(SETS), "default": SETS[0]},
                "which tool set: the memory__ tools (policy) or seed 000's seven (memory)",
            )
        ]
    },
)
async def list_tools(request: Request) -> ToolList:
    """The tools the caller is offered. An API key is offered none (and the refusal is logged)."""
    state, caller = deps.service(request), deps.caller(request)
    if not caller.is_user:
        log_refused(caller.workspace)
    caller.need_workspace(LIST_OP)
    which = deps.query_choice(request, LIST_OP, "set", SETS)
    if not caller.is_user:
        return ToolList(tools=[])
    tools = await _tool_set(state, caller, which)
    return ToolList(
        tools=[
            ToolSpecModel(name=s.name, description=s.description, parameters=s.parameters)
            for s in tools.specs()
        ]
    )


@router.post(
    "/tools/call",
    name=CALL_OP,
    operation_id="tools_call",
    response_model=ToolOutputModel,
    responses=errors(400, 401, 403, 413),
    openapi_extra=deps.json_request_body(ToolCallBody.model_json_schema()),
)
async def call(request: Request) -> ToolOutputModel:
    """Run one tool for the caller's scope; the set follows the name (memory__x: policy, else seed 000)."""
    state, caller = deps.service(request), deps.memory_caller(request, CALL_OP)
    body = await deps.model_body(request, ToolCallBody, CALL_OP)
    which = "policy" if body.tool.startswith(POLICY_PREFIX) else "memory"
    tools = await _tool_set(state, caller, which)
    out = await call_tool(tools, body.tool, body.arguments)
    return ToolOutputModel(text=out.text, is_error=out.is_error, value=out.value, error_kind=out.error_kind)
