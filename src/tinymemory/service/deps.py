"""What route handlers receive: the service state, the verified caller, and request input read safely.

Routes read their bodies and parameters here rather than through FastAPI's own validation, so every bad
input fails the same way (400, the one error body, a message naming the operation and the field), in
the order a caller can act on: credentials first, then the input.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeVar

from fastapi import Request
from fastapi.security import HTTPBearer
from pydantic import BaseModel, ValidationError

from tinymemory.api import InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.api.validate import check_unicode, fail
from tinymemory.policy import log_refused
from tinymemory.service.auth import Caller
from tinymemory.service.state import ServiceState

MAX_DEPTH = 64  # JSON nesting a body may have; tool arguments need a handful of levels
ModelT = TypeVar("ModelT", bound=BaseModel)
_INTEGER = re.compile(r"-?[0-9]{1,12}")

# Documents the bearer scheme in the OpenAPI document; the header itself is read by `caller`, which
# alone decides who is calling (this never rejects a request).
bearer = HTTPBearer(
    auto_error=False,
    description="A JWT (HS256 or RS256) or an opaque token from the token file. A token without a user "
    "is an API key.",
)
# `bearer` in an operation's OpenAPI (for `openapi_extra`), as the dependency would declare it there,
# for routes that document the scheme without running a dependency that never rejects anything.
BEARER_DOC: dict[str, Any] = {"security": [{bearer.scheme_name: []}]}


def service(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.service
    return state


def caller(request: Request) -> Caller:
    """The caller the Authorization header proves (anonymous without one)."""
    return service(request).auth.caller(request.headers.get("authorization"))


def memory_caller(request: Request, op: str) -> Caller:
    """The caller of a memory route, who must be a verified user: an anonymous caller is answered 401
    and an API key 403, each refusal logged the way the library logs one."""
    who = caller(request)
    if not who.is_user:
        log_refused(who.workspace)
    who.need_user(op)
    return who


def _reject_constant(name: str) -> float:
    raise ValueError(f"`{name}` is not a JSON number")


async def json_body(request: Request, op: str) -> Any:
    """The body as JSON (None when empty). A body that is not UTF-8 JSON, nests deeper than MAX_DEPTH,
    or holds a lone surrogate or a non-finite number is an error naming `op` (and the field)."""
    raw = await request.body()
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest(f"{op}: the body is not UTF-8") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise InvalidRequest(f"{op}: the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise InvalidRequest(f"{op}: the body is not valid JSON ({echo(str(exc), 80)})") from None
    check_json(op, value)
    return value


def check_json(op: str, value: Any) -> None:
    """Walks parsed JSON without recursion: depth, lone surrogates in keys and strings, finite numbers."""
    stack: list[tuple[Any, str, int]] = [(value, "body", 0)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, str):
            check_unicode(op, where, node)
        elif isinstance(node, float) and not math.isfinite(node):
            raise fail(op, where, "must be a finite number")
        elif isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                raise InvalidRequest(f"{op}: the body nests deeper than {MAX_DEPTH} levels")
            if isinstance(node, dict):
                for key, child in node.items():
                    check_unicode(op, _at(where, "<key>"), key)
                    stack.append((child, _at(where, key), depth + 1))
            else:
                stack.extend((child, f"{where}[{i}]", depth + 1) for i, child in enumerate(node))


def _at(where: str, key: str) -> str:
    name = echo(key, 64)
    return name if where == "body" else f"{where}.{name}"


async def model_body(request: Request, model: type[ModelT], op: str) -> ModelT:
    """The body read as `model` (a JSON object); the first complaint names the field."""
    value = await json_body(request, op)
    if not isinstance(value, dict):
        got = "nothing" if value is None else type(value).__name__
        raise InvalidRequest(f"{op}: the body must be a JSON object, got {got}")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise invalid(op, exc) from None


def invalid(op: str, exc: ValidationError) -> InvalidRequest:
    first = exc.errors(include_url=False, include_input=False)[0]
    field = ".".join(echo(str(p), 64) for p in first.get("loc", ())) or "body"
    message = str(first.get("msg", "is not valid"))
    return fail(op, field, message[:1].lower() + message[1:])


def query_int(request: Request, op: str, name: str, default: int, lo: int, hi: int) -> int:
    """An integer query parameter within [lo, hi] (`default` when absent)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not _INTEGER.fullmatch(raw):
        raise fail(op, name, f"must be an integer, got {echo(raw, 40)!r}")
    value = int(raw)
    if not lo <= value <= hi:
        raise fail(op, name, f"must be between {lo} and {hi}, got {value}")
    return value


def query_choice(request: Request, op: str, name: str, choices: tuple[str, ...]) -> str:
    """One of `choices` (the first when absent)."""
    raw = request.query_params.get(name)
    if raw is None:
        return choices[0]
    if raw not in choices:
        raise fail(op, name, f"must be one of {', '.join(choices)}, got {echo(raw, 40)!r}")
    return raw


def query_parameter(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """The OpenAPI declaration of a query parameter read by `query_int` or `query_choice`."""
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


def json_request_body(schema: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    """An operation's request body in OpenAPI (for `openapi_extra`), since the route reads it itself."""
    return {"requestBody": {"required": required, "content": {"application/json": {"schema": schema}}}}
