"""GET /api/v1/memory/tool-guidance: the memory__ tools' descriptions and schemas for the caller's
workspace, rendered from its policy, with the agent's notes when the token names a registered agent."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from tinymemory.service import deps
from tinymemory.service.models import Guidance, answer

router = APIRouter(prefix="/api/v1/memory", tags=["guidance"], dependencies=[Depends(deps.bearer)])


@router.get(
    "/tool-guidance",
    name="tool-guidance",
    operation_id="tool_guidance",
    response_model=None,
    responses=answer(Guidance, "The tools' descriptions and argument schemas for this workspace.", 401),
)
async def tool_guidance(request: Request) -> dict[str, Any]:
    """A verified user or an API key of the workspace may read it."""
    return await deps.service(request).guidance(deps.caller(request))
