"""POST /api/v1/memory/{remember,recall,open,list,forget} (the memory__ tools) and
/api/v1/memory/{store,fetch,get,explore} (seed 000's operations), for a verified user.

Each route runs the tool of the same name for the caller's scope, so the body is the tool's arguments
and the answer is its result, sent as it is: the tools already return plain JSON values, and passing
them through FastAPI's encoder cost more than the rest of the HTTP layer. The request schemas in the
OpenAPI document are the tools' own; the answers are documented by the models in service.models. An
empty body is the tool called without arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from tinymemory.api import FetchMode
from tinymemory.policy import POLICY_TOOL_NAMES, fallback_guidance
from tinymemory.service import deps
from tinymemory.service.models import ForgetResult, Memories, OpenResult, Remembered, answer
from tinymemory.tools import MEMORY_TOOLS

router = APIRouter(prefix="/api/v1/memory", tags=["memory"], dependencies=[Depends(deps.bearer)])

POLICY_PREFIX = "memory__"
STATUSES = (400, 401, 403, 413)
ANSWERS: dict[str, tuple[Any, str]] = {
    "memory__remember": (Remembered, "The memory was stored (or replaced its earlier version)."),
    "memory__recall": (Memories, "Ranked memories from every tier the caller reads."),
    "memory__open": (OpenResult, "The whole body, or not_found (the same for any id the caller cannot see)."),
    "memory__list": (Memories, "A page of memories, newest first; next_cursor when there are more."),
    "memory__forget": (ForgetResult, "Forgotten, not_found, or not_allowed (a shared memory)."),
}

Handler = Callable[[Request], Awaitable[JSONResponse]]


def _policy_route(name: str) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        state, caller = deps.service(request), deps.memory_caller(request, name)
        tools = await state.policy_tools(caller)
        return JSONResponse(await tools.call(name, await deps.json_body(request, name)))

    return handler


def _core_route(name: str) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        state, caller = deps.service(request), deps.memory_caller(request, name)
        return JSONResponse(await state.core_tools(caller).call(name, await deps.json_body(request, name)))

    return handler


def _add(
    name: str, path: str, handler: Handler, spec: tuple[str, dict[str, Any]], result: tuple[Any, str]
) -> None:
    description, parameters = spec
    model, meaning = result
    router.add_api_route(
        path,
        handler,
        methods=["POST"],
        name=name,
        operation_id=name,
        summary=f"{name}: {description.split('.')[0]}",
        description=description,
        response_model=None,
        responses=answer(model, meaning, *STATUSES),
        openapi_extra=deps.json_request_body(parameters, required=False),
    )


def _register() -> None:
    for spec in fallback_guidance()["tools"]:
        name = spec["name"]
        assert name in POLICY_TOOL_NAMES
        path = "/" + name.removeprefix(POLICY_PREFIX)
        _add(name, path, _policy_route(name), (spec["description"], spec["parameters"]), ANSWERS[name])
    for tool in MEMORY_TOOLS:
        core = tool.spec(tuple(FetchMode))
        if tool.route is not None and core is not None:
            route = (core.description, core.parameters)
            _add(tool.name, tool.route, _core_route(tool.name), route, (tool.result, tool.answers))


_register()
