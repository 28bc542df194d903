"""GET /api/v1/memory/context: context.md for the caller, the brief a host injects at session start."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from tinymemory.context import ContextSpec
from tinymemory.context import compile as compile_context
from tinymemory.service import deps
from tinymemory.service.models import ContextModel, errors

router = APIRouter(prefix="/api/v1/memory", tags=["context"], dependencies=[Depends(deps.bearer)])
OP = "context"
DEFAULT_BUDGET = 1_500
MIN_BUDGET = 50
MAX_BUDGET = 32_000


@router.get(
    "/context",
    name=OP,
    operation_id=OP,
    response_model=ContextModel,
    responses=errors(400, 401, 403),
    openapi_extra={
        "parameters": [
            deps.query_parameter(
                "budget_tokens",
                {"type": "integer", "minimum": MIN_BUDGET, "maximum": MAX_BUDGET, "default": DEFAULT_BUDGET},
                "the brief's token budget",
            )
        ]
    },
)
async def context(request: Request) -> ContextModel:
    """Reads every tier the caller sees; empty when the agent's ambient retrieval is switched off."""
    state, caller = deps.service(request), deps.memory_caller(request, OP)
    tools = await state.policy_tools(caller)
    budget = deps.query_int(request, OP, "budget_tokens", DEFAULT_BUDGET, MIN_BUDGET, MAX_BUDGET)
    reach = tools.ambient_reach()
    if reach is None:
        return ContextModel(markdown="", retrieval=False, budget_tokens=budget, items=0)
    pack = await compile_context(state.engine, ContextSpec(reach=reach, budget_tokens=budget))
    return ContextModel(markdown=pack.markdown, retrieval=True, budget_tokens=budget, items=len(pack.items))
