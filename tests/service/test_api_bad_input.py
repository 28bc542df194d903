"""Bad input over a real socket: whatever the body (not JSON, not UTF-8, too deep, too large, lone
surrogates, wrong types, unknown fields, huge numbers), every route answers a 4xx in the one error body
shape, naming the operation and the field, never a 5xx, and writes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import RunningService

MEMORY = "/api/v1/memory"
WORKSPACE = "badinput"
LIMIT = 256 * 1024  # the fixture's max_body_bytes

# (method, path, the operation its messages name, who may call it)
ROUTES: list[tuple[str, str, str, str]] = [
    ("POST", f"{MEMORY}/remember", "memory__remember", "user"),
    ("POST", f"{MEMORY}/recall", "memory__recall", "user"),
    ("POST", f"{MEMORY}/open", "memory__open", "user"),
    ("POST", f"{MEMORY}/list", "memory__list", "user"),
    ("POST", f"{MEMORY}/forget", "memory__forget", "user"),
    ("POST", f"{MEMORY}/store", "memory_store", "user"),
    ("POST", f"{MEMORY}/fetch", "memory_fetch", "user"),
    ("POST", f"{MEMORY}/get", "memory_get", "user"),
    ("POST", f"{MEMORY}/explore", "memory_explore", "user"),
    ("POST", f"{MEMORY}/tools/call", "tools call", "user"),
    ("POST", f"{MEMORY}/ingest", "ingest", "key"),
    ("PUT", "/api/v1/agents/probe", "agents put", "key"),
]
IDS = [f"{m} {p.rsplit('/', 1)[-1]}" for m, p, _, _ in ROUTES]

# Raw bodies no route may accept: (label, bytes, what the message says).
RAW: list[tuple[str, bytes, str]] = [
    ("not-json", b"remember this", "not valid JSON"),
    ("truncated", b'{"content": "x"', "not valid JSON"),
    ("invalid-utf8", b'{"content": "caf\xe9"}', "not UTF-8"),
    ("bare-continuation", b"\x80\x81\x82", "not UTF-8"),
    ("utf16", '{"content": "x"}'.encode("utf-16"), "not UTF-8"),
    ("nested-100", b"[" * 100 + b"]" * 100, "nests deeper"),
    ("nested-100k", b"[" * 100_000, "nests deeper"),
    ("nan", b'{"limit": NaN}', "not valid JSON"),
    ("infinity", b'{"confidence": -Infinity}', "not valid JSON"),
    ("huge-int", b'{"limit": ' + b"9" * 5000 + b"}", "not valid JSON"),
]


def key_of(service: RunningService) -> str:
    return service.token(WORKSPACE, None)


def user_of(service: RunningService) -> str:
    return service.token(WORKSPACE, "mallory")


def send(service: RunningService, who: str, method: str, path: str, **kw: Any) -> Any:
    token = user_of(service) if who == "user" else key_of(service)
    with service.client(token) as http:
        return http.request(method, path, **kw)


def assert_rejected(response: Any, op: str, *, status: int = 400, kind: str = "invalid_request") -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "request_id"}
    assert set(body["error"]) == {"kind", "message"}
    assert body["error"]["kind"] == kind
    assert body["request_id"] == response.headers["x-request-id"]
    message: str = body["error"]["message"]
    assert message.startswith(f"{op}: "), message
    return message


@pytest.fixture(autouse=True)
def nothing_written(service: RunningService) -> Iterator[None]:
    """After every test here, the workspace holds nothing: no memory, no document, no agent."""
    yield
    with service.client(user_of(service)) as http:
        assert http.post(f"{MEMORY}/list", json={}).json() == {"memories": []}
        assert http.post(f"{MEMORY}/explore", json={"facet": "kind"}).json()["total"] == 0
    with service.client(key_of(service)) as http:
        assert http.get("/api/v1/agents").json() == {"agents": []}


@pytest.mark.parametrize(("label", "raw", "says"), RAW, ids=[r[0] for r in RAW])
@pytest.mark.parametrize(("method", "path", "op", "who"), ROUTES, ids=IDS)
def test_raw_bodies_are_400(
    service: RunningService, method: str, path: str, op: str, who: str, label: str, raw: bytes, says: str
) -> None:
    response = send(service, who, method, path, content=raw, headers={"content-type": "application/json"})
    assert says in assert_rejected(response, op), label


@pytest.mark.parametrize(("method", "path", "op", "who"), ROUTES, ids=IDS)
def test_body_over_the_limit_is_413(
    service: RunningService, method: str, path: str, op: str, who: str
) -> None:
    big = json.dumps({"content": "x" * (LIMIT + 10)}).encode()
    declared = send(service, who, method, path, content=big)
    assert "limit" in assert_rejected(declared, op, status=413, kind="too_large")

    def streamed() -> Iterator[bytes]:  # no Content-Length: the limit holds on what is read
        yield b'{"content": "'
        for _ in range(LIMIT // 8192 + 2):
            yield b"x" * 8192
        yield b'"}'

    chunked = send(service, who, method, path, content=streamed())
    assert_rejected(chunked, op, status=413, kind="too_large")


# (route op, body, the field the message must name)
FIELDS: list[tuple[str, Any, str]] = [
    # lone surrogates, in a value and in a key
    ("memory__remember", '{"content": "\\ud800"}', "content"),
    ("memory__recall", '{"query": "tea \\udfff"}', "query"),
    ("memory_store", '{"learning": {"text": "a\\ud83d"}}', "learning.text"),
    ("memory__list", '{"\\udc00": 1}', "<key>"),
    ("tools call", '{"tool": "memory__recall", "arguments": {"query": "\\ud800"}}', "arguments.query"),
    ("tools call", '{"tool": "\\ud800"}', "tool"),
    ("ingest", '{"name": "a.md", "text": "\\ud800"}', "text"),
    ("agents put", '{"notes": "\\ud800"}', "notes"),
    # wrong types
    ("memory__remember", {"content": 5}, "content"),
    ("memory__recall", {"query": ["tea"]}, "query"),
    ("memory__open", {"memory_id": None}, "memory_id"),
    ("memory__forget", {"memory_id": {"id": "x"}}, "memory_id"),
    ("memory_get", {"ids": "m_1"}, "ids"),
    ("memory_explore", {"facet": 3}, "facet"),
    ("tools call", {"tool": 5}, "tool"),
    ("tools call", {"tool": "memory__list", "arguments": "{}"}, "arguments"),
    ("ingest", {"name": "a.md", "text": 42}, "text"),
    ("ingest", {"name": ["a.md"], "text": "t"}, "name"),
    ("agents put", {"tools": "yes"}, "tools"),
    ("agents put", {"notes": 7}, "notes"),
    # unknown fields
    ("memory__remember", {"content": "x", "namespace": "workspace:other"}, "namespace"),
    ("memory__recall", {"query": "x", "user": "alice"}, "user"),
    ("memory_store", {"learning": {"text": "x"}, "reach": "all"}, "reach"),
    ("memory_fetch", {"query": "x", "filter": {"namespace": "workspace:acme"}}, "filter.namespace"),
    ("tools call", {"tool": "memory__list", "scope": "all"}, "scope"),
    ("ingest", {"name": "a.md", "text": "t", "workspace": "acme"}, "workspace"),
    ("agents put", {"notes": "n", "id": "agt_1"}, "id"),
    # missing required fields
    ("memory__remember", {}, "content"),
    ("memory_get", {}, "ids"),
    ("ingest", {"text": "t"}, "name"),
    ("tools call", {"arguments": {}}, "tool"),
    # out of range and huge
    ("memory__recall", {"query": "x", "limit": 10**6}, "limit"),
    ("memory__recall", {"query": "x", "limit": 1e308}, "limit"),
    ("memory__recall", {"query": "x", "limit": 10**40}, "limit"),
    ("memory__recall", {"query": "x", "limit": -1}, "limit"),
    ("memory__list", {"limit": 0}, "limit"),
    ("memory__remember", {"content": "x", "confidence": 1e300}, "confidence"),
    ("memory_fetch", {"query": "x", "limit": 10**9}, "limit"),
    ("memory_get", {"ids": ["m_1"] * 5000}, "ids"),
    ("memory__recall", {"query": "x", "max_hops": 99, "seed_name": "Ann"}, "max_hops"),
    ("memory__recall", {"query": "x", "as_of": "yesterday"}, "as_of"),
    ("ingest", {"name": "a.md", "text": "t", "media_type": "application/pdf"}, "media_type"),
    ("ingest", {"name": "x" * 600, "text": "t"}, "name"),
    ("ingest", {"name": "a\nb.md", "text": "t"}, "name"),
    ("ingest", {"name": "a.md", "text": "   "}, "text"),
    ("agents put", {"notes": "n" * 5000}, "notes"),
    # not an object at all
    ("memory__remember", [1, 2], "body"),
    ("ingest", "text", "body"),
    ("agents put", None, "body"),
]
ROUTE_OF = {op: (m, p, who) for m, p, op, who in ROUTES}


@pytest.mark.parametrize(
    ("op", "body", "field"), FIELDS, ids=[f"{op}-{field}-{i}" for i, (op, _, field) in enumerate(FIELDS)]
)
def test_bad_fields_are_400_naming_the_field(service: RunningService, op: str, body: Any, field: str) -> None:
    method, path, who = ROUTE_OF[op]
    if isinstance(body, str) and body.startswith("{"):
        kw: dict[str, Any] = {"content": body.encode(), "headers": {"content-type": "application/json"}}
    else:
        kw = {"content": json.dumps(body).encode(), "headers": {"content-type": "application/json"}}
    message = assert_rejected(send(service, who, method, path, **kw), op)
    if field != "body":
        assert f"`{field}`" in message, message
    else:
        assert "object" in message, message


@pytest.mark.parametrize(
    "name", ["..", "-lead", "a b", "x" * 129, "é", "a%2Fb", "%00", "a:b", ".hidden"], ids=lambda n: n[:12]
)
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_bad_agent_names_are_400(service: RunningService, method: str, name: str) -> None:
    op = {"GET": "agents get", "PUT": "agents put", "DELETE": "agents delete"}[method]
    response = send(service, "key", method, f"/api/v1/agents/{name}", json={} if method == "PUT" else None)
    if response.status_code == 404:  # the path itself did not match a route (an encoded slash)
        assert response.json()["error"]["kind"] == "not_found"
        return
    assert "`name`" in assert_rejected(response, op)


def test_a_memory_body_is_read_only_after_the_caller_is_known(service: RunningService) -> None:
    """Credentials come first: an anonymous or API-key caller learns nothing about its body."""
    with service.client() as http:
        r = http.post(f"{MEMORY}/recall", content=b"\xff not json")
    assert r.status_code == 401
    r = send(service, "key", "POST", f"{MEMORY}/recall", content=b"\xff not json")
    assert r.status_code == 403


def test_a_contract_error_inside_a_tool_call_is_output_not_an_http_error(service: RunningService) -> None:
    body = {"tool": "memory__recall", "arguments": {"query": "x", "limit": 10**6}}
    r = send(service, "user", "POST", f"{MEMORY}/tools/call", json=body)
    assert r.status_code == 200
    out = r.json()
    assert out["is_error"] is True and out["error_kind"] == "invalid_request"
    assert out["text"].startswith("error: memory__recall: `limit`")
