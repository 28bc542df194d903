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
from tinymemory.service.models import (
    Explored,
    Fetched,
    ForgetResult,
    Got,
    Memories,
    OpenResult,
    Remembered,
    Stored,
    answer,
)
from tinymemory.tools.spec import (
    DESCRIPTIONS,
    MEMORY_EXPLORE,
    MEMORY_FETCH,
    MEMORY_GET,
    MEMORY_STORE,
    build_specs,
)

router = APIRouter(prefix="/api/v1/memory", tags=["memory"], dependencies=[Depends(deps.bearer)])

POLICY_PREFIX = "memory__"
CORE_PREFIX = "memory_"
CORE_OPERATIONS = (MEMORY_STORE, MEMORY_FETCH, MEMORY_GET, MEMORY_EXPLORE)
STATUSES = (400, 401, 403, 413)
ANSWERS: dict[str, tuple[Any, str]] = {
    "memory__remember": (Remembered, "The memory was stored (or replaced its earlier version)."),
    "memory__recall": (Memories, "Ranked memories from every tier the caller reads."),
    "memory__open": (OpenResult, "The whole body, or not_found (the same for any id the caller cannot see)."),
    "memory__list": (Memories, "A page of memories, newest first; next_cursor when there are more."),
    "memory__forget": (ForgetResult, "Forgotten, not_found, or not_allowed (a shared memory)."),
    MEMORY_STORE: (Stored, "The item's id (replayed: true when it was already stored)."),
    MEMORY_FETCH: (Fetched, "Ranked items with their scores."),
    MEMORY_GET: (Got, "The items, in order, while they fit; the ids not found."),
    MEMORY_EXPLORE: (Explored, "Counts of the caller's items by the facet's values."),
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


def _add(name: str, path: str, handler: Handler, description: str, parameters: dict[str, Any]) -> None:
    model, meaning = ANSWERS[name]
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
        _add(name, path, _policy_route(name), spec["description"], spec["parameters"])
    core = {s.name: s for s in build_specs(tuple(FetchMode), writes=True)}
    for name in CORE_OPERATIONS:
        path = "/" + name.removeprefix(CORE_PREFIX)
        _add(name, path, _core_route(name), DESCRIPTIONS[name], core[name].parameters)


_register()
