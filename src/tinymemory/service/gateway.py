"""The MCP gateway: the memory__ tools over streamable HTTP at /mcp, for whoever the bearer token proves.

Every HTTP request is verified before the MCP SDK reads it: a missing, malformed, expired or forged
token is answered 401 in the service's error shape, and the verified caller rides on the request
(`scope["state"]`) to the tool handlers, which get that caller's tools on each call (built once per
policy and rebound to the caller, see `ServiceState.policy_tools`). A verified user gets the five
memory__ tools; an API key gets none. The gateway serves no particular agent, so the tools
carry the workspace's guidance only, and memory__remember takes `agent`, naming the agent whose users a
shared fact would be proposed to.

The SDK runs stateless with JSON responses: each POST stands alone, so the SDK keeps nothing about a
caller past the request that proved it (the verifier remembers a verified JWT until its `exp`, see
`service/auth.py`). Its DNS-rebinding check stays off: a bearer token, never a cookie, is what
authorizes here, and a page a rebinding attack serves cannot add one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route

from tinymemory.adapters.mcp import POLICY_INSTRUCTIONS, SERVER_NAME, per_request_server
from tinymemory.adapters.output import ToolOutput, error_text
from tinymemory.api import InvalidRequest, Unavailable
from tinymemory.api.validate import fail
from tinymemory.policy import MEMORY_REMEMBER, Identity, PolicyTools, log_refused
from tinymemory.policy.catalog.memory__remember import AGENT, SHARE
from tinymemory.service.auth import Caller
from tinymemory.service.errors import Forbidden, Unauthorized, error_response, status_of
from tinymemory.service.registry import AgentRegistry
from tinymemory.service.state import ServiceState
from tinymemory.tools.spec import ToolSpec
from tinymemory.tools.strict import read_arguments

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

GATEWAY_PATH = "/mcp"
CALLER_KEY = "tinymemory_caller"  # in scope["state"], beside the Edge's request id
NO_TOOLS_MESSAGE = (
    "the MCP gateway offers memory tools only to a verified user; this token is an API key and names no user"
)


class GatewayTools:
    """One caller's memory__ tools as the gateway serves them: memory__remember also takes `agent`.

    A share names its target agent here because the gateway has none of its own. The agent is the
    share's target, kept apart from the save itself: the memory goes to the user's tier like any other
    remember, and the workspace's gate (when its policy enables one) receives a candidate for that
    agent's shared tier; without a gate the share is answered `kept_private`."""

    def __init__(self, tools: PolicyTools, registry: AgentRegistry, workspace: str) -> None:
        self._tools = tools
        self._registry = registry
        self._workspace = workspace

    def specs(self) -> list[ToolSpec]:
        """The tools as declared for the gateway (`PolicyContext.gateway`: memory__remember's `agent`
        is part of its declaration, so /tool-guidance?surface=gateway renders the same schema)."""
        return self._tools.specs()

    async def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        if name != MEMORY_REMEMBER:
            return await self._tools.call(name, arguments)
        raw = dict(read_arguments(name, arguments))
        agent_name = AGENT.read(name, raw)
        share = SHARE.read(name, raw)
        raw.pop(AGENT.name, None)
        if share and agent_name is None:
            raise fail(
                name, AGENT.name, "is required with share: true (this gateway serves no agent of its own)"
            )
        if agent_name is None:
            return await self._tools.call(name, raw)
        if not share:
            raise fail(name, AGENT.name, "is only used with share: true")
        agent_id = await self._agent_id(name, agent_name)
        out = await self._tools.call(name, raw, share_agent=agent_name)
        out["share_agent_id"] = agent_id
        return out

    async def _agent_id(self, tool: str, agent_name: str) -> str:
        """The registry id of the workspace's agent `agent_name`; another workspace's agent is unknown."""
        try:
            Identity(self._workspace, None, agent_name)
        except InvalidRequest:
            raise fail(tool, AGENT.name, "is not a valid agent name") from None
        record = await self._registry.get(self._workspace, agent_name)
        if record is None or not record.id:
            raise fail(tool, AGENT.name, f"names no agent of this workspace: `{agent_name}`")
        return record.id


def caller_of(ctx: ServerRequestContext[Any, Any]) -> Caller:
    """The caller the gateway's ASGI check verified for this HTTP request (anonymous if none is there,
    which only a request that bypassed the check could be)."""
    request = ctx.request
    scope = getattr(request, "scope", None)
    state = scope.get("state") if isinstance(scope, MutableMapping) else None
    caller = state.get(CALLER_KEY) if isinstance(state, MutableMapping) else None
    return caller if isinstance(caller, Caller) else Caller.anonymous()


async def gateway_tools(state: ServiceState, caller: Caller) -> GatewayTools | None:
    """The caller's tools, or None (the refusal logged) for anyone but a verified user."""
    if not caller.is_user or caller.workspace is None:
        log_refused(caller.workspace)
        return None
    tools = await state.policy_tools(caller, gateway=True)
    return GatewayTools(tools, state.registry, caller.workspace)


def gateway_server(state: ServiceState) -> Server[Any]:
    """One low-level server for every caller: the handlers look the caller up on each request."""

    async def tools_for(ctx: ServerRequestContext[Any, Any]) -> GatewayTools | None:
        return await gateway_tools(state, caller_of(ctx))

    def refusal(name: str) -> ToolOutput:
        refused = Forbidden(f"{str(name)[:40]}: {NO_TOOLS_MESSAGE}")
        return ToolOutput(error_text(refused), True, None, "forbidden")

    return per_request_server(tools_for, SERVER_NAME, POLICY_INSTRUCTIONS, refusal)


class VerifiedGateway:
    """ASGI: verify the bearer token and the body size, then hand the request to the SDK."""

    def __init__(self, manager: StreamableHTTPSessionManager, state: ServiceState) -> None:
        self._manager = manager
        self._state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            caller = self._state.auth.caller(request.headers.get("authorization"))
        except (Unauthorized, Unavailable) as exc:
            status = status_of(exc)
            await error_response(request, status, exc.kind, f"mcp: {exc.message}")(scope, receive, send)
            return
        if caller.workspace is None:
            log_refused(None)
            message = "mcp: the gateway needs a bearer token (Authorization: Bearer <token>)"
            await error_response(request, 401, "unauthorized", message)(scope, receive, send)
            return
        if request.method == "GET":
            # Stateless JSON mode pushes nothing, so there is no stream to open (the spec's answer is 405).
            message = "mcp: this gateway opens no event stream; POST JSON-RPC messages to /mcp"
            refused = error_response(request, 405, "invalid_request", message)
            refused.headers["Allow"] = "POST"
            await refused(scope, receive, send)
            return
        limit = self._state.settings.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            message = f"mcp: the request body is larger than {limit} bytes"
            await error_response(request, 413, "too_large", message)(scope, receive, send)
            return
        scope.setdefault("state", {})[CALLER_KEY] = caller
        await self._manager.handle_request(scope, receive, send)


def mount_gateway(app: FastAPI, state: ServiceState) -> None:
    """Serve the gateway at /mcp and /mcp/; its session manager runs for the app's lifetime."""
    manager = StreamableHTTPSessionManager(
        gateway_server(state),
        json_response=True,
        stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=state.settings.max_body_bytes,
    )
    endpoint = VerifiedGateway(manager, state)
    for path in (GATEWAY_PATH, GATEWAY_PATH + "/"):
        app.router.routes.append(Route(path, endpoint, include_in_schema=False))

    def run() -> AbstractAsyncContextManager[None]:
        return manager.run()

    app.state.lifespans.append(run)
