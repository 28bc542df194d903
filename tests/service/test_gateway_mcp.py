"""The MCP gateway at /mcp, driven by the official MCP client over streamable HTTP against a real service:
who gets which tools, the 401s, the gateway's `agent` beside `share`, and isolation between users."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tinymemory.policy import MEMORY_REMEMBER, POLICY_TOOL_NAMES
from tinymemory.service.tokens import issue_jwt

from .conftest import RunningService

TIMEOUT_S = 60
INIT_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


@asynccontextmanager
async def gateway(service: RunningService, token: str, path: str = "/mcp") -> AsyncIterator[ClientSession]:
    """An initialized MCP session with the gateway, authenticated by `token`."""
    headers = {"Authorization": f"Bearer {token}"}
    with anyio.fail_after(TIMEOUT_S):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(service.url + path, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def call_ok(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, text_of(result)
    value: dict[str, Any] | None = result.structured_content
    assert value is not None
    return value


async def call_error(session: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(name, arguments)
    assert result.is_error, text_of(result)
    assert result.structured_content is None
    return text_of(result)


async def found(session: ClientSession, query: str) -> tuple[list[str], list[str]]:
    """The texts memory__recall and memory__list show (previews or bodies), for `query`."""
    recalled = await call_ok(session, "memory__recall", {"query": query})
    listed = await call_ok(session, "memory__list", {})
    return [json.dumps(m) for m in recalled["memories"]], [json.dumps(m) for m in listed["memories"]]


async def assert_nothing_saved(session: ClientSession, marker: str) -> None:
    recalled, listed = await found(session, marker)
    assert recalled == []
    assert listed == []


def register_agent(service: RunningService, workspace: str, name: str, notes: str | None = None) -> str:
    with service.client(service.token(workspace, "root", admin=True)) as http:
        response = http.put(f"/api/v1/agents/{name}", json={"notes": notes})
    assert response.status_code == 201, response.text
    agent_id = response.json()["id"]
    assert isinstance(agent_id, str) and agent_id
    return agent_id


# --- who gets which tools ---------------------------------------------------------------------------


async def test_verified_user_lists_the_five_tools_with_agent_on_remember(service: RunningService) -> None:
    async with gateway(service, service.token(unique("w"), "alice")) as session:
        listed = await session.list_tools()
    assert [t.name for t in listed.tools] == list(POLICY_TOOL_NAMES)
    by_name = {t.name: t for t in listed.tools}
    remember = by_name[MEMORY_REMEMBER].input_schema
    agent = remember["properties"]["agent"]
    assert agent["type"] == "string"
    assert "agent of this workspace" in agent["description"]
    assert "share" in remember["properties"]
    assert "agent" not in remember.get("required", [])
    for name, tool in by_name.items():
        if name != MEMORY_REMEMBER:
            assert "agent" not in tool.input_schema.get("properties", {})


async def test_tool_descriptions_equal_the_guidance_of_a_token_without_agent(service: RunningService) -> None:
    workspace = unique("w")
    register_agent(service, workspace, "helper", notes="Only for the helper agent: prefer terse memories.")
    with service.client(service.token(workspace, "alice")) as http:
        plain = http.get("/api/v1/memory/tool-guidance")
    with service.client(service.token(workspace, "alice", "helper")) as http:
        with_agent = http.get("/api/v1/memory/tool-guidance")
    assert plain.status_code == with_agent.status_code == 200
    expected = {t["name"]: t for t in plain.json()["tools"]}
    agent_texts = {t["description"] for t in with_agent.json()["tools"]}
    assert any("prefer terse memories" in d for d in agent_texts)  # the agent's notes exist over HTTP
    # A token naming an agent still gets the gateway's agent-free guidance: it serves no particular agent.
    for token in (service.token(workspace, "alice"), service.token(workspace, "alice", "helper")):
        async with gateway(service, token) as session:
            listed = await session.list_tools()
        assert {t.name for t in listed.tools} == set(expected)
        for tool in listed.tools:
            assert tool.description == expected[tool.name]["description"]
            assert "prefer terse memories" not in (tool.description or "")
            schema = dict(tool.input_schema)
            if tool.name == MEMORY_REMEMBER:
                schema["properties"] = {k: v for k, v in schema["properties"].items() if k != "agent"}
            assert schema == expected[tool.name]["parameters"]


async def test_api_key_lists_no_tools_and_its_calls_are_refused(service: RunningService) -> None:
    workspace = unique("w")
    async with gateway(service, service.token(workspace, "alice")) as alice:
        await call_ok(alice, MEMORY_REMEMBER, {"content": "alice keeps a kestrel named Pip"})
    async with gateway(service, service.token(workspace, None)) as session:
        listed = await session.list_tools()
        assert listed.tools == []
        for name, arguments in (
            ("memory__recall", {"query": "kestrel"}),
            ("memory__list", {}),
            (MEMORY_REMEMBER, {"content": "an API key may not write"}),
        ):
            message = await call_error(session, name, arguments)
            assert "verified user" in message and "API key" in message
            assert "kestrel" not in message


# --- the 401s -----------------------------------------------------------------------------------------


def assert_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    body = response.json()
    assert set(body) == {"error", "request_id"}
    assert body["error"]["kind"] == "unauthorized"
    assert body["error"]["message"].startswith("mcp: ")
    assert isinstance(body["request_id"], str) and body["request_id"]
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_anonymous_and_bad_tokens_get_401(
    service: RunningService, expired_token: Callable[[], str], path: str
) -> None:
    wrong_secret = issue_jwt("another-secret-" + "y" * 40, "acme", "alice")
    bad = {
        "anonymous": {},
        "expired": {"Authorization": f"Bearer {expired_token()}"},
        "wrong signature": {"Authorization": f"Bearer {wrong_secret}"},
        "not a bearer": {"Authorization": "Basic YWxpY2U6cHc="},
        "unknown opaque": {"Authorization": "Bearer not-a-known-token"},
    }
    with httpx.Client(base_url=service.url, timeout=30) as http:
        for why, headers in bad.items():
            response = http.post(path, json=INIT_BODY, headers={**MCP_HEADERS, **headers})
            assert_unauthorized(response)
            message = response.json()["error"]["message"]
            if why == "expired":
                assert "expired" in message
            if why == "wrong signature":
                assert "signature" in message
        assert_unauthorized(http.get(path, headers={"Accept": "text/event-stream"}))


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_a_valid_token_initializes_on_both_paths(service: RunningService, path: str) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {service.token(unique('w'), 'alice')}"}
    with httpx.Client(base_url=service.url, timeout=30) as http:
        response = http.post(path, json=INIT_BODY, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["serverInfo"]["name"] == "tinymemory"


def test_get_opens_no_stream(service: RunningService) -> None:
    headers = {
        "Accept": "text/event-stream",
        "Authorization": f"Bearer {service.token(unique('w'), 'alice')}",
    }
    with httpx.Client(base_url=service.url, timeout=30) as http:
        response = http.get("/mcp", headers=headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["kind"] == "invalid_request"


@pytest.mark.skipif(not MODERN_PROTOCOL_VERSIONS, reason="this SDK speaks no per-request protocol version")
def test_per_request_protocol_sees_the_same_caller(service: RunningService) -> None:
    """The SDK's other request path (no handshake, the version on every request) gets the caller too."""
    version = MODERN_PROTOCOL_VERSIONS[-1]
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    workspace = unique("w")
    names: dict[str, list[str]] = {}
    with httpx.Client(base_url=service.url, timeout=30) as http:
        for who, user in (("user", "alice"), ("api key", None)):
            headers = {
                **MCP_HEADERS,
                "Authorization": f"Bearer {service.token(workspace, user)}",
                "mcp-protocol-version": version,
                "mcp-method": "tools/list",
            }
            response = http.post("/mcp", json=body, headers=headers)
            assert response.status_code == 200, response.text
            names[who] = [t["name"] for t in response.json()["result"]["tools"]]
    assert names == {"user": list(POLICY_TOOL_NAMES), "api key": []}


def test_oversized_body_is_413_in_the_service_shape(service: RunningService) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {service.token(unique('w'), 'alice')}"}
    big = {**INIT_BODY, "params": {**INIT_BODY["params"], "pad": "x" * (300 * 1024)}}  # type: ignore[dict-item]
    with httpx.Client(base_url=service.url, timeout=30) as http:
        response = http.post("/mcp", content=json.dumps(big), headers=headers)
    assert response.status_code == 413
    assert response.json()["error"]["kind"] == "too_large"


# --- remember, with and without a share ----------------------------------------------------------------


async def test_remember_without_share_is_found_by_recall_and_list(service: RunningService) -> None:
    async with gateway(service, service.token(unique("w"), "alice")) as session:
        saved = await call_ok(session, MEMORY_REMEMBER, {"content": "alice brews oolong every morning"})
        assert saved["status"] == "created" and saved["tier"] == "user"
        assert "share" not in saved and "share_agent_id" not in saved
        recalled, listed = await found(session, "oolong")
    assert any(saved["id"] in m and "oolong" in m for m in recalled)
    assert any(saved["id"] in m for m in listed)


async def test_share_with_agent_saves_privately_and_names_the_agent(service: RunningService) -> None:
    workspace = unique("w")
    agent_id = register_agent(service, workspace, "helper")
    token = service.token(workspace, "alice")
    async with gateway(service, token) as session:
        saved = await call_ok(
            session,
            MEMORY_REMEMBER,
            {"content": "alice's team ships on Thursdays", "share": True, "agent": "helper"},
        )
        assert saved["status"] == "created" and saved["tier"] == "user"
        assert saved["share"] == "kept_private"
        assert saved["share_agent_id"] == agent_id
        recalled, listed = await found(session, "Thursdays")
        assert any(saved["id"] in m for m in recalled)
        assert any(saved["id"] in m for m in listed)
        opened = await call_ok(session, "memory__open", {"memory_id": saved["id"]})
    assert "Thursdays" in json.dumps(opened)
    # The share key is kept out of the memory: neither the agent's id nor its name is in the stored item.
    with service.client(token) as http:
        got = http.post("/api/v1/memory/get", json={"ids": [saved["id"]]})
    assert got.status_code == 200, got.text
    stored = json.dumps(got.json())
    assert "Thursdays" in stored
    assert agent_id not in stored and "helper" not in stored
    assert agent_id not in json.dumps(opened) and "helper" not in json.dumps(opened)


async def test_share_without_agent_is_a_tool_error_and_saves_nothing(service: RunningService) -> None:
    async with gateway(service, service.token(unique("w"), "alice")) as session:
        message = await call_error(session, MEMORY_REMEMBER, {"content": "marker quasar one", "share": True})
        assert "`agent` is required with share: true" in message
        await assert_nothing_saved(session, "quasar")


async def test_unknown_or_foreign_agent_is_a_tool_error_and_saves_nothing(service: RunningService) -> None:
    workspace, other = unique("w"), unique("w")
    register_agent(service, other, "scout")  # exists, but in another workspace
    async with gateway(service, service.token(workspace, "alice")) as session:
        for agent in ("nobody", "scout"):
            message = await call_error(
                session, MEMORY_REMEMBER, {"content": "marker nebula two", "share": True, "agent": agent}
            )
            assert f"names no agent of this workspace: `{agent}`" in message
            assert other not in message
        message = await call_error(
            session, MEMORY_REMEMBER, {"content": "marker nebula two", "share": True, "agent": "no such/name"}
        )
        assert "`agent` is not a valid agent name" in message
        await assert_nothing_saved(session, "nebula")


async def test_agent_without_share_and_bad_types_are_tool_errors(service: RunningService) -> None:
    workspace = unique("w")
    register_agent(service, workspace, "helper")
    async with gateway(service, service.token(workspace, "alice")) as session:
        for extra in ({"agent": "helper"}, {"agent": "helper", "share": False}):
            message = await call_error(session, MEMORY_REMEMBER, {"content": "marker pulsar three", **extra})
            assert "`agent` is only used with share: true" in message
        message = await call_error(
            session, MEMORY_REMEMBER, {"content": "marker pulsar three", "share": True, "agent": 7}
        )
        assert "`agent`" in message and "string" in message
        message = await call_error(
            session, MEMORY_REMEMBER, {"content": "marker pulsar three", "share": "yes", "agent": "helper"}
        )
        assert "`share` must be true or false" in message
        # A bad field the policy tools check still saves nothing after the agent was accepted.
        message = await call_error(
            session,
            MEMORY_REMEMBER,
            {"content": "marker pulsar three", "share": True, "agent": "helper", "x": 1},
        )
        assert "`x` is not a known argument" in message
        await assert_nothing_saved(session, "pulsar")


# --- open, forget, isolation --------------------------------------------------------------------------


async def test_open_and_forget(service: RunningService) -> None:
    async with gateway(service, service.token(unique("w"), "alice")) as session:
        saved = await call_ok(session, MEMORY_REMEMBER, {"content": "alice's bike is a green Brompton"})
        opened = await call_ok(session, "memory__open", {"memory_id": saved["id"]})
        assert "Brompton" in json.dumps(opened)
        forgotten = await call_ok(session, "memory__forget", {"memory_id": saved["id"]})
        assert forgotten["status"] == "forgotten" and forgotten["id"] == saved["id"]
        await assert_nothing_saved(session, "Brompton")
        again = await call_ok(session, "memory__open", {"memory_id": saved["id"]})
        assert "Brompton" not in json.dumps(again)


async def test_bob_never_sees_alices_memory(service: RunningService) -> None:
    workspace = unique("w")
    async with gateway(service, service.token(workspace, "alice")) as alice:
        saved = await call_ok(alice, MEMORY_REMEMBER, {"content": "alice's locker code is 4417 zephyr"})
    for token in (service.token(workspace, "bob"), service.token(unique("w"), "alice")):
        async with gateway(service, token) as other:
            await assert_nothing_saved(other, "zephyr locker code")
            opened = await call_ok(other, "memory__open", {"memory_id": saved["id"]})
            assert "zephyr" not in json.dumps(opened)
            forgot = await call_ok(other, "memory__forget", {"memory_id": saved["id"]})
            assert forgot["status"] == "not_found", forgot
    async with gateway(service, service.token(workspace, "alice")) as alice:
        recalled, _ = await found(alice, "zephyr locker code")
    assert any(saved["id"] in m for m in recalled)  # bob's forget did not touch it


async def test_the_gateways_guidance_is_its_tool_list_agent_included(service: RunningService) -> None:
    """/tool-guidance?surface=gateway is what the gateway lists, byte for byte: memory__remember's
    `agent` comes from the tool's one declaration, not from a second list kept by the gateway."""
    workspace = unique("w")
    register_agent(service, workspace, "helper", notes="Only for the helper agent: prefer terse memories.")
    for token in (service.token(workspace, "alice"), service.token(workspace, "alice", "helper")):
        with service.client(token) as http:
            served = http.get("/api/v1/memory/tool-guidance", params={"surface": "gateway"})
            api = http.get("/api/v1/memory/tool-guidance", params={"surface": "api"})
        assert served.status_code == api.status_code == 200, served.text
        guidance = {t["name"]: t for t in served.json()["tools"]}
        assert "agent" in guidance[MEMORY_REMEMBER]["parameters"]["properties"]
        assert all("agent" not in t["parameters"]["properties"] for t in api.json()["tools"])
        async with gateway(service, token) as session:
            listed = await session.list_tools()
        assert [t.name for t in listed.tools] == list(guidance)
        for tool in listed.tools:
            assert tool.description == guidance[tool.name]["description"]
            assert dict(tool.input_schema) == guidance[tool.name]["parameters"]
    with service.client(service.token(workspace, "alice")) as http:
        bad = http.get("/api/v1/memory/tool-guidance", params={"surface": "elsewhere"})
    assert bad.status_code == 400 and "surface" in bad.json()["error"]["message"]
