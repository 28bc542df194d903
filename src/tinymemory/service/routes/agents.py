"""/api/v1/agents: the workspace's agent registry. Any verified caller of the workspace may read it;
an API key or an admin token may change it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from tinymemory.api import NotFound
from tinymemory.service import deps
from tinymemory.service.models import AgentBody, AgentList, AgentModel, errors
from tinymemory.service.registry import AgentRecord, check_agent_name

router = APIRouter(prefix="/api/v1/agents", tags=["agents"], dependencies=[Depends(deps.bearer)])
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@+=~-]{0,127}$"  # the identity grammar of one name
NAME_PARAMETER: dict[str, Any] = {
    "parameters": [
        {
            "name": "name",
            "in": "path",
            "required": True,
            "description": "the agent's name in this workspace",
            "schema": {"type": "string", "pattern": NAME_PATTERN, "maxLength": 128},
        }
    ]
}


def _model(record: AgentRecord) -> AgentModel:
    return AgentModel(
        name=record.name,
        id=record.id,
        notes=record.notes,
        tools=record.tools,
        retrieval=record.retrieval,
        updated_at=record.updated_at.isoformat() if record.updated_at else None,
    )


def _name(request: Request, op: str) -> str:
    return check_agent_name(op, request.path_params.get("name"))


@router.get(
    "", name="agents list", operation_id="agents_list", response_model=AgentList, responses=errors(401)
)
async def list_agents(request: Request) -> AgentList:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_workspace("agents list")
    return AgentList(agents=[_model(r) for r in await state.registry.list(workspace)])


@router.get(
    "/{name}",
    name="agents get",
    operation_id="agents_get",
    response_model=AgentModel,
    responses=errors(400, 401, 404),
    openapi_extra=NAME_PARAMETER,
)
async def get_agent(request: Request) -> AgentModel:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_workspace("agents get")
    name = _name(request, "agents get")
    record = await state.registry.get(workspace, name)
    if record is None:
        raise NotFound(f"agents get: no agent named `{name}` in this workspace")
    return _model(record)


@router.put(
    "/{name}",
    name="agents put",
    operation_id="agents_put",
    response_model=AgentModel,
    status_code=200,
    responses={
        201: {"model": AgentModel, "description": "The agent was created (200: an update)."},
        **errors(400, 401, 403, 413),
    },
    openapi_extra={**NAME_PARAMETER, **deps.json_request_body(AgentBody.model_json_schema())},
)
async def put_agent(request: Request, response: Response) -> AgentModel:
    """Create or replace the agent's record; its id is kept across updates."""
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional("agents put")
    name = _name(request, "agents put")
    body = await deps.model_body(request, AgentBody, "agents put")
    record, created = await state.registry.put(
        workspace, name, notes=body.notes, tools=body.tools, retrieval=body.retrieval
    )
    response.status_code = 201 if created else 200
    return _model(record)


@router.delete(
    "/{name}",
    name="agents delete",
    operation_id="agents_delete",
    response_model=AgentModel,
    responses=errors(400, 401, 403, 404),
    openapi_extra=NAME_PARAMETER,
)
async def delete_agent(request: Request) -> AgentModel:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional("agents delete")
    return _model(await state.registry.delete(workspace, _name(request, "agents delete")))
