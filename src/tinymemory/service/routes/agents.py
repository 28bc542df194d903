"""/api/v1/agents: the workspace's agent registry. Any verified caller of the workspace may read it;
an API key or an admin token may change it."""

from __future__ import annotations

from fastapi import APIRouter, Path, Request, Response

from tinymemory.api import NotFound
from tinymemory.service import deps
from tinymemory.service.models import AgentBody, AgentList, AgentModel, errors
from tinymemory.service.registry import AgentRecord

router = APIRouter(prefix="/api/v1/agents", tags=["agents"])
NAME = Path(description="the agent's name in this workspace", max_length=128)


def _model(record: AgentRecord) -> AgentModel:
    return AgentModel(
        name=record.name,
        id=record.id,
        notes=record.notes,
        tools=record.tools,
        retrieval=record.retrieval,
        updated_at=record.updated_at.isoformat() if record.updated_at else None,
    )


@router.get("", response_model=AgentList, responses=errors(401))
async def list_agents(request: Request) -> AgentList:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_workspace("agents list")
    return AgentList(agents=[_model(r) for r in await state.registry.list(workspace)])


@router.get("/{name}", response_model=AgentModel, responses=errors(401, 404))
async def get_agent(request: Request, name: str = NAME) -> AgentModel:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_workspace("agents get")
    record = await state.registry.get(workspace, name)
    if record is None:
        raise NotFound(f"agents get: no agent named `{name[:128]}` in this workspace")
    return _model(record)


@router.put("/{name}", response_model=AgentModel, responses=errors(400, 401, 403, 413))
async def put_agent(request: Request, body: AgentBody, response: Response, name: str = NAME) -> AgentModel:
    """Create or replace the agent's record; its id is kept across updates."""
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional("agents put")
    record, created = await state.registry.put(
        workspace, name, notes=body.notes, tools=body.tools, retrieval=body.retrieval
    )
    response.status_code = 201 if created else 200
    return _model(record)


@router.delete("/{name}", response_model=AgentModel, responses=errors(401, 403, 404))
async def delete_agent(request: Request, name: str = NAME) -> AgentModel:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional("agents delete")
    return _model(await state.registry.delete(workspace, name))
