"""POST /api/v1/memory/ingest: a document into the workspace's institutional tier (the brain), which
every user of the workspace reads. For an API key or an admin user."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from tinymemory.api.validate import fail
from tinymemory.lifecycle import Brain
from tinymemory.service import deps
from tinymemory.service.models import IngestBody, IngestFailure, IngestReportModel, errors

router = APIRouter(prefix="/api/v1/memory", tags=["ingest"], dependencies=[Depends(deps.bearer)])
OP = "ingest"


def check(body: IngestBody) -> None:
    """What the model's field limits cannot say: not blank, one-line names (unicode is checked on read)."""
    for field in ("name", "text"):
        if not getattr(body, field).strip():
            raise fail(OP, field, "must not be blank")
    for field in ("name", "title", "source"):
        value = getattr(body, field)
        if value is not None and any(c in value for c in "\x00\r\n"):
            raise fail(OP, field, "must be one line")


@router.post(
    "/ingest",
    name=OP,
    operation_id=OP,
    response_model=IngestReportModel,
    responses=errors(400, 401, 403, 413),
    openapi_extra=deps.json_request_body(IngestBody.model_json_schema()),
)
async def ingest(request: Request) -> IngestReportModel:
    """Chunk and store the document; re-ingesting a name replaces its chunks (unchanged text is kept)."""
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional(OP)
    body = await deps.model_body(request, IngestBody, OP)
    check(body)
    brain = Brain(state.engine, state.institutional_layout(workspace))
    report = await brain.ingest_text(
        body.text, source=body.source, name=body.name, media_type=body.media_type, title=body.title
    )
    return IngestReportModel(
        stored=report.stored,
        replaced=report.replaced,
        unchanged=report.unchanged,
        failed=[IngestFailure(name=n, message=m) for n, m in report.failed],
        chunks=report.chunks,
    )
