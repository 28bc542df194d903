"""POST /api/v1/memory/ingest: a document into the workspace's institutional tier (its brain), which
every user of the workspace recalls. For an API key or an admin token only."""

from __future__ import annotations

from fastapi import APIRouter, Request

from tinymemory.api.validate import check_unicode, fail
from tinymemory.lifecycle import Brain
from tinymemory.service import deps
from tinymemory.service.models import IngestBody, IngestReportModel, errors

router = APIRouter(prefix="/api/v1/memory", tags=["ingest"])
OP = "ingest"
MAX_NAME_CHARS = 512
MAX_TEXT_CHARS = 2_000_000


@router.post("/ingest", response_model=IngestReportModel, responses=errors(400, 401, 403, 413))
async def ingest(request: Request, body: IngestBody) -> IngestReportModel:
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional(OP)
    for field, value, limit in (("name", body.name, MAX_NAME_CHARS), ("text", body.text, MAX_TEXT_CHARS)):
        check_unicode(OP, field, value)
        if not value.strip():
            raise fail(OP, field, "must not be empty")
        if len(value) > limit:
            raise fail(OP, field, f"must be at most {limit} characters")
    if any(c in body.name for c in "\x00\r\n"):
        raise fail(OP, "name", "must be one line")
    for field, text in (("title", body.title), ("source", body.source)):
        if text is not None:
            check_unicode(OP, field, text)
    brain = Brain(state.engine, state.institutional_layout(workspace))
    report = await brain.ingest_text(
        body.text, source=body.source, name=body.name, media_type=body.media_type, title=body.title
    )
    return IngestReportModel(
        stored=report.stored,
        replaced=report.replaced,
        unchanged=report.unchanged,
        failed=[{"name": n, "message": m} for n, m in report.failed],
        chunks=report.chunks,
    )
