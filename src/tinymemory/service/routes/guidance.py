"""GET /api/v1/memory/tool-guidance: the memory__ tools' descriptions and schemas for the caller's
workspace, rendered from its policy, with the agent's notes when the token names a registered agent."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from tinymemory.service import deps
from tinymemory.service.models import errors

router = APIRouter(prefix="/api/v1/memory", tags=["guidance"])


@router.get("/tool-guidance", responses=errors(401))
async def tool_guidance(request: Request) -> dict[str, Any]:
    """A verified user or an API key of the workspace may read it."""
    return await deps.service(request).guidance(deps.caller(request))
