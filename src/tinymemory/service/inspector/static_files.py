"""The inspector's bundled CSS and JS, read once from the package and served from this process (no CDN,
no web fonts: the page works offline)."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, Response

from tinymemory.service.inspector import pages
from tinymemory.service.inspector.routes import SECURITY_HEADERS, page

MEDIA_TYPES = {"inspector.css": "text/css; charset=utf-8", "inspector.js": "text/javascript; charset=utf-8"}


def static_router() -> APIRouter:
    folder = resources.files("tinymemory.service.inspector") / "static"
    files = {name: (folder / name).read_bytes() for name in MEDIA_TYPES}
    router = APIRouter(include_in_schema=False)

    @router.get(pages.STATIC + "{name}")
    async def static(name: str) -> Response:
        body = files.get(name)
        if body is None:
            return page(pages.problem("Not found", "There is no such file."), 404)
        headers = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=3600"}
        return Response(body, media_type=MEDIA_TYPES[name], headers=headers)

    return router
