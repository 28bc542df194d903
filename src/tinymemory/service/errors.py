"""The service's errors: the contract's kinds plus the two only a service has, and their HTTP statuses.

Every error response has one body shape, `{"error": {"kind", "message"}, "request_id"}`, whatever raised
it: a contract error, a failed sign-in, a malformed body, an unknown route.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request
from fastapi.responses import JSONResponse

from tinymemory.api import TinyMemoryError


class Unauthorized(TinyMemoryError):
    """No credentials, or credentials the service cannot verify (bad signature, expired, unknown)."""

    kind = "unauthorized"


class Forbidden(TinyMemoryError):
    """Verified credentials that do not allow the operation (an API key on a memory route, say)."""

    kind = "forbidden"


class TooLarge(TinyMemoryError):
    """A request body over the service's limit; nothing was read past the limit."""

    kind = "too_large"


STATUS_OF_KIND: dict[str, int] = {
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "unsupported": 403,
    "not_found": 404,
    "conflict": 409,
    "too_large": 413,
    "unavailable": 503,
}
ERROR_KINDS = (*STATUS_OF_KIND, "internal")


def status_of(error: TinyMemoryError) -> int:
    return STATUS_OF_KIND.get(error.kind, 400)


def error_response(
    request: Request, status: int, kind: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The one error body every surface answers with (routes, the MCP gateway, the inspector's API)."""
    request_id = getattr(request.state, "request_id", "")
    body = {"error": {"kind": kind, "message": message}, "request_id": request_id}
    sent = dict(headers or {})
    if status == 401:
        sent["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=sent or None)
