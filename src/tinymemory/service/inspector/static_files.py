"""The inspector's bundled files (CSS, JS, icons), read once from the package and served from this
process (no CDN, no web fonts: the page works offline)."""

from __future__ import annotations

from importlib import resources
from pathlib import PurePosixPath

from fastapi import APIRouter, Response

from tinymemory.service.inspector import pages
from tinymemory.service.inspector.routes import SECURITY_HEADERS, page

MEDIA_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".png": "image/png",
}


def bundled_files() -> dict[str, tuple[bytes, str]]:
    """Every file of the static folder with a known type, by name, with its media type."""
    folder = resources.files("tinymemory.service.inspector") / "static"
    files: dict[str, tuple[bytes, str]] = {}
    for entry in folder.iterdir():
        media_type = MEDIA_TYPES.get(PurePosixPath(entry.name).suffix)
        if media_type is not None and entry.is_file():
            files[entry.name] = (entry.read_bytes(), media_type)
    return files


def static_router() -> APIRouter:
    files = bundled_files()
    router = APIRouter(include_in_schema=False)

    @router.get(pages.STATIC + "{name}")
    async def static(name: str) -> Response:
        found = files.get(name)
        if found is None:
            return page(pages.problem("Not found", "There is no such file."), 404)
        body, media_type = found
        headers = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=3600"}
        return Response(body, media_type=media_type, headers=headers)

    return router
