"""create_app: the FastAPI application of `tinymemory serve`.

The app owns one engine for its lifetime (opened at start-up, closed after the last in-flight request),
shares it between the HTTP routes, the MCP gateway and the inspector, and answers every error with one
body shape.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from tinymemory._version import __version__
from tinymemory.api import MemoryEngine, TinyMemoryError
from tinymemory.service.auth import Authenticator
from tinymemory.service.edge import Edge
from tinymemory.service.errors import error_response, status_of
from tinymemory.service.fleet import Fleet, GateLock
from tinymemory.service.gateway import mount_gateway
from tinymemory.service.inspector import mount_inspector
from tinymemory.service.metrics import ServiceMetrics
from tinymemory.service.periodic import periodic
from tinymemory.service.policies import PolicyBook
from tinymemory.service.registry import AgentRegistry
from tinymemory.service.retention_loop import retention_loop
from tinymemory.service.routes import (
    agents,
    consent,
    context,
    export,
    forget_me,
    gate,
    guidance,
    health,
    ingest,
    memory,
    tools,
)
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.state import ServiceState

log = logging.getLogger("tinymemory.service")

HTTP_KINDS = {401: "unauthorized", 403: "forbidden", 404: "not_found", 413: "too_large"}


def _validation_message(exc: RequestValidationError, request: Request) -> str:
    """Pydantic's first complaint, led by the route's name and naming the field."""
    op = getattr(request.scope.get("route"), "name", None) or "request"
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    field = ".".join(loc) or "body"
    return f"{op}: `{field}` {str(first.get('msg', 'is not valid')).lower()}"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TinyMemoryError)
    async def contract_error(request: Request, exc: TinyMemoryError) -> JSONResponse:
        return error_response(request, status_of(exc), exc.kind, exc.message)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(request, 400, "invalid_request", _validation_message(exc, request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = HTTP_KINDS.get(exc.status_code, "invalid_request")
        path = request.url.path[:120].encode("ascii", "backslashreplace").decode()
        return error_response(request, exc.status_code, kind, f"{path}: {exc.detail}", exc.headers)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        message = "internal error; the service logged it with this request id"
        return error_response(request, 500, "internal", message)


def gate_loop(
    state: ServiceState, seconds: float, metrics: ServiceMetrics, lock: GateLock | None = None
) -> AbstractAsyncContextManager[None]:
    """The shared-write gate in the background, every `seconds`, once per tick across workers."""

    async def job() -> None:
        report = await state.gate_job().run()
        if report.published or report.merged or report.rejected or report.withdrawn:
            log.info("gate: %s", report.to_dict())

    return periodic("shared-write gate", seconds, job, metrics.gate_runs, lock)


def open_engine(settings: ServiceSettings) -> MemoryEngine:
    """The store `settings.db` names: a SQLite file or a postgresql:// URL (engines.open_engine)."""
    from tinymemory.engines import open_engine as open_target

    return open_target(settings.db, embedder=settings.embedder)


# Allocations between two young-generation collections while serving (Python's default is 700): one
# recall allocates thousands of short-lived objects, nearly all freed by reference counting, so at the
# default the collector ran several times per request for almost nothing (measured in process at
# 50,000 items: 0.9% of a recall's instructions). Cycles are still collected, a few requests later.
YOUNG_COLLECTION_THRESHOLD = 7000


def settle_heap() -> None:
    """Leave what start-up built (the web stack, the tools' schemas, the engine) out of every later
    garbage collection: the collector's full passes walked all of it again and again while serving
    (one worker at 50,000 items and 32 clients: full passes 5.0% of its CPU, 0.5% once frozen). What
    requests allocate is still collected, its young generation less often (YOUNG_COLLECTION_THRESHOLD)."""
    gc.collect()
    gc.freeze()
    young, older, oldest = gc.get_threshold()
    gc.set_threshold(max(YOUNG_COLLECTION_THRESHOLD, young), older, oldest)


def create_app(
    settings: ServiceSettings, engine: MemoryEngine | None = None, fleet: Fleet | None = None
) -> FastAPI:
    """The service over `engine` (opened from `settings.db` when None, and then closed on shutdown).
    `fleet`: what this process shares with the other workers of one `serve --workers N` (the gate's
    lock, the registry's change counter, the inspector's key); None for a process serving alone."""
    policies = PolicyBook.load(settings.policy)  # a broken policy fails here, before serving
    auth = Authenticator(settings)
    owned = engine is None
    the_engine = open_engine(settings) if engine is None else engine
    metrics = ServiceMetrics(settings.db, the_engine)
    changes = fleet.registry_changes() if fleet is not None else None
    registry = AgentRegistry(the_engine, changes=changes)
    state = ServiceState(settings, the_engine, auth, policies, registry)
    extra_lifespans: list[Any] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            # Closed last (the stack unwinds in reverse): the periodic jobs stop before the engine
            # they use is closed, so a tick at shutdown never runs on a closed engine.
            if owned:
                stack.push_async_callback(the_engine.close)
            if changes is not None:
                stack.callback(changes.close)
            for enter in extra_lifespans:
                await stack.enter_async_context(enter())
            # One lock for the periodic jobs: the worker holding it runs the gate and retention.
            lock = fleet.gate_lock() if fleet is not None else None
            if settings.gate_seconds > 0:
                await stack.enter_async_context(gate_loop(state, settings.gate_seconds, metrics, lock))
            if settings.retention_seconds > 0:
                await stack.enter_async_context(
                    retention_loop(state, settings.retention_seconds, metrics, lock)
                )
            settle_heap()
            state.ready = True
            try:
                yield
            finally:
                state.ready = False

    app = FastAPI(
        title="tinymemory",
        version=__version__,
        summary="Memory for LLM agents: the memory API, the MCP gateway and the inspector.",
        lifespan=lifespan,
    )
    app.state.service = state
    app.state.metrics = metrics
    app.state.lifespans = extra_lifespans
    install_error_handlers(app)
    # The memory routes first: every request is matched against each router in turn, and these are the
    # busiest (no two groups share a path, so the order changes no answer).
    for module in (
        memory,
        health,
        guidance,
        consent,
        export,
        forget_me,
        tools,
        context,
        ingest,
        agents,
        gate,
    ):
        app.include_router(module.router)
    mount_surfaces(app, state, fleet.csrf_key if fleet is not None else None)
    worker = str(os.getpid()) if fleet is not None else None
    app.add_middleware(Edge, metrics=metrics, max_body_bytes=settings.max_body_bytes, worker=worker)
    return app


def mount_surfaces(app: FastAPI, state: ServiceState, csrf_key: bytes | None = None) -> None:
    """The MCP gateway and the inspector page."""
    mount_gateway(app, state)
    mount_inspector(app, state, csrf_key)
