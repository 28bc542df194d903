"""The service logs, at info level and in the library's words, each time it refuses the memory tools to an
API key or an anonymous caller (the HTTP routes and the MCP gateway alike), and never for a verified
user. Against a real service on 127.0.0.1; the official MCP client drives the gateway."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest

from tinymemory.policy import MEMORY_RECALL

from .conftest import RunningService
from .test_gateway_mcp import call_error, gateway, unique

LOGGER = "tinymemory.policy"
WORDS = "memory tools not registered"
Request = Callable[[httpx.Client], httpx.Response]
REQUESTS: dict[str, Request] = {
    "remember": lambda http: http.post("/api/v1/memory/remember", json={"content": "the kiln is hot"}),
    "recall": lambda http: http.post("/api/v1/memory/recall", json={"query": "kiln"}),
    "store": lambda http: http.post("/api/v1/memory/store", json={"learning": {"text": "the kiln is hot"}}),
    "tools list": lambda http: http.get("/api/v1/memory/tools"),
    "tools call": lambda http: http.post(
        "/api/v1/memory/tools/call", json={"tool": MEMORY_RECALL, "arguments": {"query": "kiln"}}
    ),
    "context": lambda http: http.get("/api/v1/memory/context"),
}


@contextmanager
def refusals(caplog: pytest.LogCaptureFixture) -> Iterator[list[logging.LogRecord]]:
    """The library logger's records about refused memory tools, collected while the block runs."""
    found: list[logging.LogRecord] = []
    with caplog.at_level(logging.INFO, logger=LOGGER):
        caplog.clear()
        yield found
        found += [r for r in caplog.records if r.name == LOGGER and WORDS in r.getMessage()]


@pytest.mark.parametrize("route", sorted(REQUESTS))
@pytest.mark.parametrize("who", ["api key", "anonymous"])
def test_a_refused_route_logs_once_at_info(
    service: RunningService, caplog: pytest.LogCaptureFixture, route: str, who: str
) -> None:
    workspace = unique("w")
    token = service.token(workspace, None) if who == "api key" else None
    with refusals(caplog) as logged, service.client(token) as http:
        answer = REQUESTS[route](http)
    assert answer.status_code in (200, 401, 403), answer.text
    assert [r.levelno for r in logged] == [logging.INFO], route
    assert "anonymous or API key" in logged[0].getMessage()
    if who == "api key":
        assert workspace in logged[0].getMessage()


@pytest.mark.parametrize("route", sorted(REQUESTS))
def test_a_verified_user_is_not_logged(
    service: RunningService, caplog: pytest.LogCaptureFixture, route: str
) -> None:
    with refusals(caplog) as logged, service.client(service.token(unique("w"), "alice")) as http:
        answer = REQUESTS[route](http)
    assert answer.status_code == 200, answer.text
    assert logged == []


async def test_the_gateway_logs_each_refusal_to_an_api_key(
    service: RunningService, caplog: pytest.LogCaptureFixture
) -> None:
    workspace = unique("w")
    async with gateway(service, service.token(workspace, None)) as session:
        with refusals(caplog) as listed:
            assert (await session.list_tools()).tools == []
        with refusals(caplog) as called:
            await call_error(session, MEMORY_RECALL, {"query": "kiln"})
    for logged in (listed, called):
        assert [r.levelno for r in logged] == [logging.INFO]
        assert workspace in logged[0].getMessage()


def test_the_gateway_logs_an_anonymous_caller(
    service: RunningService, caplog: pytest.LogCaptureFixture
) -> None:
    with refusals(caplog) as logged, service.client() as http:
        answer = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer.status_code == 401
    assert [r.levelno for r in logged] == [logging.INFO]


async def test_the_gateway_does_not_log_a_verified_user(
    service: RunningService, caplog: pytest.LogCaptureFixture
) -> None:
    async with gateway(service, service.token(unique("w"), "alice")) as session:
        with refusals(caplog) as logged:
            assert (await session.list_tools()).tools
    assert logged == []
