"""The inspector: a small server-rendered page at `/` where a signed-in user browses, searches, reads
and forgets their memory, with a little bundled JavaScript and nothing fetched from elsewhere."""

from __future__ import annotations

from fastapi import FastAPI

from tinymemory.service.inspector import (
    consent_routes,
    dashboard_routes,
    edit_routes,
    gate_routes,
)
from tinymemory.service.inspector.routes import router
from tinymemory.service.inspector.session import CsrfKey
from tinymemory.service.inspector.static_files import static_router
from tinymemory.service.state import ServiceState

__all__ = ["mount_inspector"]


def mount_inspector(app: FastAPI, state: ServiceState, csrf_key: bytes | None = None) -> None:
    """Add the inspector's routes to `app`; pages read the state per request, like every route.
    `csrf_key`: the key forms are signed with (the workers of one service share one; None: a fresh one)."""
    del state  # the routes find it through deps.service, as the API routes do
    app.state.inspector_csrf = CsrfKey(csrf_key)
    app.include_router(router)
    for extra in (edit_routes, dashboard_routes, gate_routes, consent_routes):
        app.include_router(extra.router)
    app.include_router(static_router())
