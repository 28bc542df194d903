"""The tool sets a facade hands a model: seed 000's seven memory_ tools scoped to the facade, or the
memory__ policy tools of the identity its namespace names; their specs in each runtime's format, and
calls by name.

The tool layers (`tinymemory.tools`, `tinymemory.policy`) and the adapters load only when a tool set is
asked for, and the MCP SDK only for the "mcp" format.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from tinymemory.api import MemoryEngine, Namespace, Reach, TinyMemoryError
from tinymemory.api.echo import echo
from tinymemory.api.validate import check_bool, fail
from tinymemory.async_memory.arguments import checked

if TYPE_CHECKING:
    from tinymemory.adapters import ToolOutput, ToolSet

TOOLSETS = ("memory", "policy")
TOOL_FORMATS = ("neutral", "openai", "anthropic", "mcp")
# A namespace naming a user, as the policy tiers spell it (policy/identity.py).
_IDENTITY_SHAPES = (["workspace", "user"], ["workspace", "user", "agent"])


def memory_toolset(
    engine: MemoryEngine, place: Namespace, reach: Reach, *, read_only: bool, zone: object
) -> ToolSet:
    """The seven memory_ tools writing at `place` and reading within `reach`."""
    from tinymemory.tools import MemoryTools, ToolScope

    tools = MemoryTools(engine, ToolScope(place, reach, writes=not read_only))
    if zone is not None:
        if not isinstance(zone, str | tzinfo):
            raise fail("tools", "zone", "must be a time zone name or a tzinfo")
        tools = tools.in_zone(zone)  # refuses an unknown name as `tools: zone ...`
    return tools


def policy_toolset(engine: MemoryEngine, namespace: Namespace, *, read_only: bool, policy: object) -> ToolSet:
    """The memory__ tools of the verified identity `namespace` names, under `policy` (None: built in)."""
    from tinymemory.policy import POLICY_READ_TOOLS, Identity, MemoryPolicy, PolicyTools, Registration

    if policy is not None and not isinstance(policy, MemoryPolicy):
        raise fail("tools", "policy", f"must be a MemoryPolicy, got {type(policy).__name__}")
    segments = namespace.segments
    if [s.kind for s in segments] not in _IDENTITY_SHAPES:
        raise fail(
            "tools",
            "toolset",
            "`policy` needs this Memory's namespace to name a user (workspace:W/user:U or "
            f"workspace:W/user:U/agent:A), not `{echo(str(namespace) or 'root')}`",
        )
    agent = segments[2].name if len(segments) == 3 else None
    identity = Identity(segments[0].name, segments[1].name, agent, verified=True)
    registration = Registration(offer=POLICY_READ_TOOLS) if read_only else None
    return PolicyTools.for_identity(engine, identity, policy, registration=registration)


class AsyncTools:
    """One tool set a model is given, bound to the facade that made it (see `AsyncMemory.tools`).

    `specs(format)` describes the tools for a runtime; `call(name, arguments)` runs one and returns its
    JSON-ready result or raises; `output(name, arguments)` runs one and returns what the model reads,
    an error included, so a host loop needs no try/except.
    """

    __slots__ = ("_kind", "_toolset")

    def __init__(self, toolset: ToolSet, kind: str) -> None:
        """Wrap a `MemoryTools` or `PolicyTools`; `kind` is "memory" or "policy"."""
        self._toolset = toolset
        self._kind = kind

    @property
    def toolset(self) -> ToolSet:
        """The underlying `MemoryTools` or `PolicyTools` (for `tinymemory.adapters.mcp.mcp_server`)."""
        return self._toolset

    @checked("names")
    def names(self) -> list[str]:
        """The names of the tools offered, in order."""
        return [s.name for s in self._toolset.specs()]

    @checked("specs")
    def specs(self, format: str = "neutral", *, strict: bool = False) -> list[dict[str, Any]]:
        """The tools as a runtime wants them: "neutral" ({name, description, parameters}), "openai"
        (function tools; `strict=True` for strict mode), "anthropic" ({name, description,
        input_schema}) or "mcp" (MCP tool definitions with inputSchema and annotations).

        Raises InvalidRequest (`specs: ...`) for an unknown format or `strict` outside openai.
        """
        from tinymemory.adapters import anthropic_tool, openai_tool

        if format not in TOOL_FORMATS:
            raise fail(
                "specs", "format", f"`{echo(format)}` is not a format (one of: {', '.join(TOOL_FORMATS)})"
            )
        if check_bool("specs", "strict", strict) and format != "openai":
            raise fail("specs", "strict", "applies to the openai format only")
        specs = self._toolset.specs()
        if format == "openai":
            return [openai_tool(s, strict=strict) for s in specs]
        if format == "anthropic":
            return [anthropic_tool(s) for s in specs]
        if format == "mcp":
            from tinymemory.adapters.mcp import mcp_tool  # the MCP SDK loads only for this format

            return [mcp_tool(s).model_dump(by_alias=True, exclude_none=True, mode="json") for s in specs]
        return [s.to_dict() for s in specs]

    @checked("call")
    async def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> dict[str, Any]:
        """Run tool `name` with `arguments` (a mapping, its JSON text, or None for none) and return
        the result as JSON-ready data.

        Raises InvalidRequest (a bad name or bad arguments, named for the tool), Unsupported (a tool
        this set does not offer, e.g. a write on read-only tools) and the engine's errors, led by the
        tool's name; nothing is written on an error.
        """
        known = self._known()
        if not isinstance(name, str) or name not in known:
            raise fail(
                "call", "name", f"`{echo(name)}` is not a {self._kind} tool (one of: {', '.join(known)})"
            )
        return await self._toolset.call(name, arguments)

    @checked("output")
    async def output(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Run tool `name` like `call`, but return what the model reads: `.text` is the result's compact
        JSON or "error: <message>", `.is_error` says which, `.value` is the result on success. Only a
        bug (not a contract error) raises."""
        from tinymemory.adapters import ToolOutput, error_text, result_text

        try:
            value = await self.call(name, arguments)
        except TinyMemoryError as error:
            return ToolOutput(error_text(error), True, None, error.kind)
        return ToolOutput(result_text(value), False, value)

    def _known(self) -> tuple[str, ...]:
        """Every tool name of this kind of set, offered or not (an unoffered one is Unsupported)."""
        if self._kind == "policy":
            from tinymemory.policy import POLICY_TOOL_NAMES

            return POLICY_TOOL_NAMES
        from tinymemory.tools import TOOL_NAMES

        return TOOL_NAMES
