"""The ASGI edge every request crosses: a request id, the body size limit, and the route metrics.

A plain ASGI middleware rather than Starlette's BaseHTTPMiddleware, so the MCP gateway's streamed
responses pass through untouched.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from tinymemory.service.errors import TooLarge
from tinymemory.service.metrics import ServiceMetrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_ID_HEADER = b"x-request-id"
WORKER_HEADER = b"x-tinymemory-worker"  # the process id of the worker that answered
_SAFE_ID = re.compile(rb"[A-Za-z0-9._:-]{1,64}")
ID_BYTES = 16
IDS_PER_DRAW = 256


class RequestIds:
    """Request ids of 16 random bytes (32 hex digits), the bytes drawn from the system's generator 256
    ids at a time: one `uuid4` per request is a system call that lets go of the interpreter, and under
    load the event loop then waited for it back behind the reader threads (4.6% of a worker's event
    loop samples at 50,000 items and 32 clients; 3.6 us a call against 0.35 alone). Only the event
    loop mints (no lock)."""

    def __init__(self) -> None:
        self._pool = b""
        self._at = 0

    def mint(self) -> str:
        if self._at >= len(self._pool):
            self._pool, self._at = os.urandom(ID_BYTES * IDS_PER_DRAW), 0
        at = self._at
        self._at = at + ID_BYTES
        return self._pool[at : at + ID_BYTES].hex()


def route_label(scope: Scope) -> str:
    """The route template (`/api/v1/agents/{name}`), never the raw path: labels stay few."""
    route = scope.get("route")
    path = getattr(route, "path_format", None) or getattr(route, "path", None)
    if isinstance(path, str):
        return path
    raw = scope.get("path", "")
    if isinstance(raw, str) and raw.startswith("/mcp"):
        return "/mcp"
    return "unmatched"


def _too_large(scope: Scope, limit: int) -> TooLarge:
    """Names the operation (the matched route's name) reading the body; nothing past the limit is read."""
    op = getattr(scope.get("route"), "name", None) or route_label(scope)
    return TooLarge(f"{op}: the request body is larger than the service's limit of {limit} bytes")


class Edge:
    """`worker`: when set (a worker of `serve --workers N`), every response names it in WORKER_HEADER."""

    def __init__(
        self, app: ASGIApp, metrics: ServiceMetrics, max_body_bytes: int, worker: str | None = None
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self.tags = [(WORKER_HEADER, worker.encode())] if worker is not None else []
        self.ids = RequestIds()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        given = headers.get(REQUEST_ID_HEADER, b"")
        request_id = given.decode() if _SAFE_ID.fullmatch(given) else self.ids.mint()
        scope.setdefault("state", {})["request_id"] = request_id
        status = {"code": 500}
        started = time.perf_counter()
        limit = self.max_body_bytes
        seen = {"bytes": 0}
        declared = headers.get(b"content-length")
        too_large = declared is not None and declared.isdigit() and int(declared) > limit

        async def limited_receive() -> Message:
            if too_large:
                raise _too_large(scope, limit)
            message = await receive()
            if message["type"] == "http.request":
                seen["bytes"] += len(message.get("body", b""))
                if seen["bytes"] > limit:
                    raise _too_large(scope, limit)
            return message

        async def tagged_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                tags = [(REQUEST_ID_HEADER, request_id.encode()), *self.tags]
                message["headers"] = [*message["headers"], *tags]
            await send(message)

        try:
            await self.app(scope, limited_receive, tagged_send)
        finally:
            self.metrics.observe(
                route_label(scope), scope.get("method", "GET"), status["code"], time.perf_counter() - started
            )
