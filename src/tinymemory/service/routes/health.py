"""/healthz (the process answers), /readyz (the engine answers a read), /metrics (Prometheus)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from tinymemory.api import ExploreRequest, Facet, MetaFilter, TinyMemoryError, Unavailable
from tinymemory.service import deps
from tinymemory.service.metrics import CONTENT_TYPE
from tinymemory.service.models import Health, errors

router = APIRouter(tags=["health"])


@router.get("/healthz", operation_id="healthz", response_model=Health)
async def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", operation_id="readyz", response_model=Health, responses=errors(503))
async def readyz(request: Request) -> Health:
    state = deps.service(request)
    if not state.ready:
        raise Unavailable("readyz: the service is starting or stopping")
    try:
        await state.engine.explore(ExploreRequest(Facet.KIND, MetaFilter(), limit=1))
    except TinyMemoryError as exc:
        raise Unavailable(f"readyz: the store does not answer ({exc.message})") from None
    return Health(status="ready")


@router.get(
    "/metrics",
    operation_id="metrics",
    response_class=Response,
    responses={200: {"description": "Prometheus text format", "content": {CONTENT_TYPE: {}}}},
)
async def metrics(request: Request) -> Response:
    return Response(await request.app.state.metrics.scrape(), media_type=CONTENT_TYPE)
