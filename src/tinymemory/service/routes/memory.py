"""POST /api/v1/memory/{remember,recall,open,list,forget} (the memory__ tools) and
/api/v1/memory/{store,fetch,get,explore} (seed 000's operations), for a verified user.

Each route runs the tool of the same name for the caller's scope, so the body is the tool's arguments
and the answer is its result. The request schemas in the OpenAPI document are the tools' own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request

from tinymemory.api import FetchMode
from tinymemory.policy import POLICY_TOOL_NAMES, fallback_guidance
from tinymemory.service import deps
from tinymemory.service.models import errors
from tinymemory.tools.spec import (
    DESCRIPTIONS,
    MEMORY_EXPLORE,
    MEMORY_FETCH,
    MEMORY_GET,
    MEMORY_STORE,
    build_specs,
)

router = APIRouter(prefix="/api/v1/memory", tags=["memory"])

POLICY_PREFIX = "memory__"
CORE_PREFIX = "memory_"
CORE_OPERATIONS = (MEMORY_STORE, MEMORY_FETCH, MEMORY_GET, MEMORY_EXPLORE)
ERRORS = errors(400, 401, 403, 413)

Handler = Callable[[Request], Awaitable[dict[str, Any]]]


def _body_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": parameters}}}}


def _policy_route(name: str) -> Handler:
    async def handler(request: Request) -> dict[str, Any]:
        state, caller = deps.service(request), deps.caller(request)
        tools = await state.policy_tools(caller)
        return await tools.call(name, await deps.json_body(request, name))

    return handler


def _core_route(name: str) -> Handler:
    async def handler(request: Request) -> dict[str, Any]:
        state, caller = deps.service(request), deps.caller(request)
        return await state.core_tools(caller).call(name, await deps.json_body(request, name))

    return handler


def _register() -> None:
    for spec in fallback_guidance()["tools"]:
        name = spec["name"]
        assert name in POLICY_TOOL_NAMES
        router.add_api_route(
            "/" + name.removeprefix(POLICY_PREFIX),
            _policy_route(name),
            methods=["POST"],
            name=name,
            summary=f"{name}: {spec['description'].split('.')[0]}",
            description=spec["description"],
            responses=ERRORS,
            openapi_extra=_body_schema(spec["parameters"]),
        )
    core = {s.name: s for s in build_specs(tuple(FetchMode), writes=True)}
    for name in CORE_OPERATIONS:
        router.add_api_route(
            "/" + name.removeprefix(CORE_PREFIX),
            _core_route(name),
            methods=["POST"],
            name=name,
            summary=f"{name}: {DESCRIPTIONS[name].split('.')[0]}",
            description=DESCRIPTIONS[name],
            responses=ERRORS,
            openapi_extra=_body_schema(core[name].parameters),
        )


_register()
