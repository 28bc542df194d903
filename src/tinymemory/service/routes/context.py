"""GET /api/v1/memory/context: context.md for the caller, the brief a host injects at session start."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from tinymemory.context import ContextSpec
from tinymemory.context import compile as compile_context
from tinymemory.service import deps
from tinymemory.service.models import ContextModel, errors

router = APIRouter(prefix="/api/v1/memory", tags=["context"])
MAX_BUDGET = 32_000


@router.get("/context", response_model=ContextModel, responses=errors(400, 401, 403))
async def context(
    request: Request,
    budget_tokens: int = Query(1_500, ge=50, le=MAX_BUDGET, description="the brief's token budget"),
) -> ContextModel:
    """Reads every tier the caller sees; empty when the agent's ambient retrieval is switched off."""
    state, caller = deps.service(request), deps.caller(request)
    tools = await state.policy_tools(caller)
    reach = tools.ambient_reach()
    if reach is None:
        return ContextModel(markdown="", retrieval=False, budget_tokens=budget_tokens, items=0)
    pack = await compile_context(state.engine, ContextSpec(reach=reach, budget_tokens=budget_tokens))
    return ContextModel(
        markdown=pack.markdown, retrieval=True, budget_tokens=budget_tokens, items=len(pack.items)
    )
