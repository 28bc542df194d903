"""What route handlers receive: the service state, the verified caller, a JSON body read safely."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from tinymemory.api import InvalidRequest
from tinymemory.service.auth import Caller
from tinymemory.service.state import ServiceState


def service(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.service
    return state


def caller(request: Request) -> Caller:
    """The caller the Authorization header proves (anonymous without one)."""
    return service(request).auth.caller(request.headers.get("authorization"))


async def json_body(request: Request, op: str) -> Any:
    """The body as JSON (None when empty); a body that is not JSON is an error naming `op`."""
    raw = await request.body()
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise InvalidRequest(f"{op}: the body is not UTF-8") from None
    except ValueError as exc:
        raise InvalidRequest(f"{op}: the body is not valid JSON ({str(exc)[:80]})") from None
    except RecursionError:
        raise InvalidRequest(f"{op}: the body nests too deeply") from None
