"""GET /api/v1/memory/export: everything the service holds about the verified caller, streamed as JSON
lines (policy/user_export.py): their memories in every tier of theirs with every version, their shares
at the gate, their evidence in published facts and their consent record. The identity comes from the
token alone, so no parameter can name another user."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from tinymemory.api import InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.policy import export_user
from tinymemory.service import deps
from tinymemory.service.models import errors

router = APIRouter(prefix="/api/v1/memory", tags=["export"], dependencies=[Depends(deps.bearer)])
MEDIA_TYPE = "application/x-ndjson"


def no_parameters(request: Request, op: str) -> None:
    """Refuse any query parameter: nothing in a request may name whose data a privacy route touches (the
    token alone says), so `?user=eve` is an error rather than silently the caller's own data."""
    for name in request.query_params:
        raise InvalidRequest(f"{op}: `{echo(name, 40)}` is not a parameter of this route (it takes none)")


@router.get(
    "/export",
    name="export",
    operation_id="memory_export",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One JSON object per line, each with a `record` kind.",
            "content": {MEDIA_TYPE: {}},
        },
        **errors(400, 401, 403),
    },
)
async def export(request: Request) -> StreamingResponse:
    """The caller's own data, one record per line, read as it is sent."""
    state, caller = deps.service(request), deps.memory_caller(request, "export")
    no_parameters(request, "export")
    identity = caller.identity()
    records = export_user(state.engine, identity)

    async def lines() -> AsyncIterator[bytes]:
        async for record in records:
            yield (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode()

    headers = {"Content-Disposition": 'attachment; filename="tinymemory-export.jsonl"'}
    return StreamingResponse(lines(), media_type=MEDIA_TYPE, headers=headers)
