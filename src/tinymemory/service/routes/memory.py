"""POST /api/v1/memory/{remember,recall,open,list,forget} (the memory__ tools) and
/api/v1/memory/{store,fetch,get,explore} (seed 000's operations), for a verified user.

Each route runs the tool of the same name for the caller's scope, so the body is the tool's arguments
and the answer is its result, sent as it is: the tools already return plain JSON values, and passing
them through FastAPI's encoder cost more than the rest of the HTTP layer. The request schemas in the
OpenAPI document are the tools' own and the answers are documented by the result models the tools
declare; a tool is routed here when its declaration names a route. An empty body is the tool called
without arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tinymemory.api import FetchMode
from tinymemory.policy import POLICY_TOOLS, MemoryPolicy, PolicyContext
from tinymemory.service import deps
from tinymemory.service.models import Answer, answer
from tinymemory.tools import MEMORY_TOOLS, Tool, ToolSpec

# The bearer scheme is declared on each operation (deps.BEARER_DOC) rather than as the router's
# dependency, which would run on every request of the service's busiest routes for nothing.
router = APIRouter(prefix="/api/v1/memory", tags=["memory"])

STATUSES = (400, 401, 403, 413)

Handler = Callable[[Request], Awaitable[JSONResponse]]


def _policy_route(name: str) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        state, caller = deps.service(request), deps.memory_caller(request, name)
        tools = await state.policy_tools(caller)
        return Answer(await tools.call(name, await deps.json_body(request, name)))

    return handler


def _core_route(name: str) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        state, caller = deps.service(request), deps.memory_caller(request, name)
        return Answer(await state.core_tools(caller).call(name, await deps.json_body(request, name)))

    return handler


def _add(tool: Tool[Any, Any, Any], spec: ToolSpec | None, handler: Handler) -> None:
    """Route `tool` at the path it declares, documented by its spec and its result model."""
    if tool.route is None or spec is None:
        return
    router.add_api_route(
        tool.route,
        handler,
        methods=["POST"],
        name=tool.name,
        operation_id=tool.name,
        summary=f"{tool.name}: {spec.description.split('.')[0]}",
        description=spec.description,
        response_model=None,
        responses=answer(tool.result, tool.answers, *STATUSES),
        openapi_extra={**deps.json_request_body(spec.parameters, required=False), **deps.BEARER_DOC},
    )


def _register() -> None:
    """The memory__ tools as the fallback describes them (no policy enums: the caller's workspace policy
    decides those, see /tool-guidance), then the memory_ tools for an engine serving every mode."""
    fallback = PolicyContext(MemoryPolicy.default(), fallback=True)
    for policy_tool in POLICY_TOOLS:
        _add(policy_tool, policy_tool.spec(fallback), _policy_route(policy_tool.name))
    for memory_tool in MEMORY_TOOLS:
        _add(memory_tool, memory_tool.spec(tuple(FetchMode)), _core_route(memory_tool.name))


_register()
