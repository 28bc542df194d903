"""GET /api/v1/memory/tool-guidance: the memory__ tools' descriptions and schemas for the caller's
workspace, rendered from its policy, with the agent's notes when the token names a registered agent.

`surface=gateway` renders them as the MCP gateway at /mcp lists them, from the same declarations: no
agent's notes (it serves no particular agent) and memory__remember's `agent` argument."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from tinymemory.service import deps
from tinymemory.service.models import Guidance, answer

router = APIRouter(prefix="/api/v1/memory", tags=["guidance"], dependencies=[Depends(deps.bearer)])
OP = "tool-guidance"
SURFACES = ("api", "gateway")


@router.get(
    "/tool-guidance",
    name=OP,
    operation_id="tool_guidance",
    response_model=None,
    responses=answer(Guidance, "The tools' descriptions and argument schemas for this workspace.", 400, 401),
    openapi_extra={
        "parameters": [
            deps.query_parameter(
                "surface",
                {"type": "string", "enum": list(SURFACES), "default": SURFACES[0]},
                "whose tools: the HTTP API's (api) or the MCP gateway's at /mcp (gateway: no agent's "
                "notes, and memory__remember takes `agent`)",
            )
        ]
    },
)
async def tool_guidance(request: Request) -> dict[str, Any]:
    """A verified user or an API key of the workspace may read it."""
    state, caller = deps.service(request), deps.caller(request)
    surface = deps.query_choice(request, OP, "surface", SURFACES)
    return await state.guidance(caller, gateway=surface == "gateway")
