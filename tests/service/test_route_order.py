"""The service's route groups share no path: whatever order the app includes them in (the busiest
first), each route is the first that fully matches its own path and method."""

from __future__ import annotations

from pathlib import Path

from fastapi.routing import APIRoute
from starlette.routing import Match

from tinymemory.service.app import create_app
from tinymemory.service.routes import memory
from tinymemory.service.settings import ServiceSettings


def test_each_route_is_the_first_to_match_its_path(tmp_path: Path) -> None:
    app = create_app(ServiceSettings(db=str(tmp_path / "memory.db"), jwt_secret="ab" * 32, gate_seconds=0))
    groups = [getattr(r, "original_router", None) for r in app.router.routes]
    assert memory.router in groups
    held = [
        (g, r)
        for g in groups
        if g is not None
        for r in g.routes
        if isinstance(r, APIRoute) and "{" not in r.path
    ]
    assert len(held) > len(memory.router.routes)
    for group, route in held:
        for method in sorted(route.methods):
            scope = {"type": "http", "path": route.path, "method": method, "root_path": ""}
            first = next(c for c in app.router.routes if c.matches(scope)[0] is Match.FULL)
            assert getattr(first, "original_router", None) is group, (method, route.path)
