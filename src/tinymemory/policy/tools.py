"""PolicyTools: the memory__ tools one identified conversation is given, and the dispatch of its calls.

Registration follows the specification: only a verified user gets memory tools (an anonymous or API-key
conversation gets none, logged at info level); memory__open is offered only beside memory__recall, and
recall answers with previews only when open is offered. Memory tools and ambient retrieval are
independent switches of the `Registration`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tinymemory.api import InvalidRequest, MemoryEngine, Reach, Unsupported
from tinymemory.api.echo import echo
from tinymemory.policy.guidance import render_guidance, with_fallback
from tinymemory.policy.identity import Identity
from tinymemory.policy.policy import MemoryPolicy
from tinymemory.policy.registry import MEMORY_OPEN, MEMORY_RECALL, POLICY_TOOL_NAMES, POLICY_TOOLS
from tinymemory.policy.session import MediaProbe, PolicyContext, PolicySession
from tinymemory.tools.preview import ResultBounds
from tinymemory.tools.spec import ToolSpec
from tinymemory.tools.strict import read_arguments

log = logging.getLogger("tinymemory.policy")


@dataclass(frozen=True, slots=True)
class Registration:
    """The agent's memory switches: `tools` (the memory__ tools) and `retrieval` (ambient context:
    context.md and the pre-turn pack) are independent; `offer` narrows the tool set."""

    tools: bool = True
    retrieval: bool = True
    offer: tuple[str, ...] = field(default=POLICY_TOOL_NAMES)

    def __post_init__(self) -> None:
        for name in ("tools", "retrieval"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidRequest(f"registration: `{name}` must be true or false")
        if not isinstance(self.offer, tuple):
            raise InvalidRequest("registration: `offer` must be a tuple of tool names")
        for i, name in enumerate(self.offer):
            if name not in POLICY_TOOL_NAMES:
                raise InvalidRequest(
                    f"registration: `offer[{i}]` `{echo(name)}` is not a memory tool "
                    f"(one of: {', '.join(POLICY_TOOL_NAMES)})"
                )


def log_refused(workspace: str | None) -> None:
    """The one info record a refusal of the memory tools leaves (no verified user: anonymous or an API
    key), here and in the service, so an operator finds every refusal under one logger and wording."""
    log.info(
        "memory tools not registered for workspace %s: the conversation has no verified user "
        "(anonymous or API key)",
        workspace if workspace is not None else "(none)",
    )


def offered_tools(identity: Identity, registration: Registration) -> tuple[str, ...]:
    """The tools a conversation gets, in the canonical order."""
    if not identity.is_verified_user or not registration.tools:
        return ()
    offer = set(registration.offer)
    if MEMORY_RECALL not in offer:
        offer.discard(MEMORY_OPEN)  # open exists to read recall's previews
    return tuple(n for n in POLICY_TOOL_NAMES if n in offer)


class PolicyTools:
    """The memory__ tools for one identity. Build with `for_identity`; an instance never changes."""

    __slots__ = (
        "_args",
        "_bounds",
        "_engine",
        "_guidance",
        "_identity",
        "_offered",
        "_policy",
        "_probe",
        "_registration",
        "_tiers",
    )

    def __init__(
        self,
        engine: MemoryEngine,
        identity: Identity,
        policy: MemoryPolicy,
        registration: Registration,
        guidance: dict[str, Any],
        bounds: ResultBounds,
        media_probe: MediaProbe | None,
        gateway: bool = False,
    ) -> None:
        self._engine = engine
        self._identity = identity
        self._tiers = identity.tiers
        self._policy = policy
        self._registration = registration
        self._offered = offered_tools(identity, registration)
        # Declared once per policy: every call is read against the policy's own enums.
        context = PolicyContext(policy, previews=MEMORY_OPEN in self._offered, gateway=gateway)
        self._args = {tool.name: tool.arguments(context) for tool in POLICY_TOOLS}
        self._guidance = guidance
        self._bounds = bounds
        self._probe = media_probe

    @classmethod
    def for_identity(
        cls,
        engine: MemoryEngine,
        identity: Identity,
        policy: MemoryPolicy | None = None,
        agent_notes: str | None = None,
        *,
        registration: Registration | None = None,
        guidance: Mapping[str, Any] | None = None,
        bounds: ResultBounds | None = None,
        media_probe: MediaProbe | None = None,
        gateway: bool = False,
    ) -> PolicyTools:
        """The tools for `identity` under `policy` (the built-in default when None).

        `guidance` is guidance a memory service served (completed by the fallback); without it the
        guidance is rendered here from the policy and `agent_notes`. Arguments are always validated
        against `policy`. `media_probe` tells memory__open whether a reference's content still exists.
        `gateway`: the tools as the MCP gateway serves them (memory__remember declares `agent`; the host
        resolves it and passes it as `share_agent`).
        """
        if not isinstance(identity, Identity):
            raise InvalidRequest("policy tools: `identity` must be an Identity")
        if policy is not None and not isinstance(policy, MemoryPolicy):
            raise InvalidRequest("policy tools: `policy` must be a MemoryPolicy")
        reg = registration if registration is not None else Registration()
        effective = policy if policy is not None else MemoryPolicy.default()
        offered = offered_tools(identity, reg)
        if not identity.is_verified_user:
            log_refused(identity.workspace)
        if guidance is not None:
            doc = with_fallback(guidance)
        else:
            doc = render_guidance(policy, None, agent_notes, previews=MEMORY_OPEN in offered, gateway=gateway)
        return cls(
            engine,
            identity,
            effective,
            reg,
            doc,
            bounds if bounds is not None else ResultBounds(),
            media_probe,
            gateway,
        )

    def rebound(self, identity: Identity) -> PolicyTools:
        """The same tools for another identity offered the same tools (a verified user when this
        instance's is one): the same engine, policy, registration, guidance, bounds and probe, so a host
        serving many users builds the argument declarations and the guidance once per policy rather
        than once per call. Nothing of this instance's identity carries over: the tiers and the scope of
        every call are `identity`'s. An identity offered other tools is an InvalidRequest (build its
        tools with `for_identity`)."""
        if not isinstance(identity, Identity):
            raise InvalidRequest("policy tools: `identity` must be an Identity")
        if offered_tools(identity, self._registration) != self._offered:
            raise InvalidRequest("policy tools: `identity` is not offered the same tools; use for_identity")
        other = object.__new__(PolicyTools)
        for name in PolicyTools.__slots__:
            object.__setattr__(other, name, getattr(self, name))
        other._identity = identity
        other._tiers = identity.tiers
        return other

    @property
    def identity(self) -> Identity:
        """The identity these tools act for, as the host proved it."""
        return self._identity

    @property
    def policy(self) -> MemoryPolicy:
        """The effective policy (the built-in default when none was given)."""
        return self._policy

    @property
    def registration(self) -> Registration:
        """The agent's registration: whether it offers memory tools and ambient retrieval at all."""
        return self._registration

    @property
    def guidance(self) -> dict[str, Any]:
        """The tool guidance document: what the model reads about each tool and the policy."""
        return self._guidance

    @property
    def previews(self) -> bool:
        """Recall and list answer with previews only when memory__open is offered to read them."""
        return MEMORY_OPEN in self._offered

    def ambient_reach(self) -> Reach | None:
        """The reach ambient retrieval (context.md, the pre-turn pack) may read, or None when it is
        switched off or the conversation has no verified user. Independent of the tools switch."""
        if not self._registration.retrieval or not self._identity.is_verified_user:
            return None
        return self._tiers.read_reach

    def names(self) -> list[str]:
        """The names of the tools offered to this identity (none for an unverified conversation)."""
        return list(self._offered)

    def specs(self) -> list[ToolSpec]:
        """The offered tools, described by the guidance, with the hints their declarations give."""
        by_name = {t["name"]: t for t in self._guidance["tools"]}
        return [
            ToolSpec(
                tool.name, by_name[tool.name]["description"], by_name[tool.name]["parameters"], tool.hints
            )
            for tool in POLICY_TOOLS
            if tool.name in self._offered
        ]

    async def call(
        self, name: str, arguments: object = None, *, share_agent: str | None = None
    ) -> dict[str, Any]:
        """Run one call. Raises InvalidRequest (bad name or arguments), Unsupported (a tool this
        conversation is not offered) and engine errors led by the tool's name; nothing is written on
        an error. `share_agent` is host input, never the model's: the agent of the workspace a share
        is proposed to when the conversation has none of its own (the MCP gateway)."""
        if share_agent is not None:
            Identity(self._identity.workspace, None, share_agent)  # the namespace grammar
        tool = POLICY_TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            offered = ", ".join(self._offered) or "none"
            raise InvalidRequest(f"`{echo(name, 40)}` is not a memory tool (offered: {offered})")
        if name not in self._offered:
            why = (
                "memory tools are offered only to a verified user"
                if not self._identity.is_verified_user
                else "it is not offered in this conversation"
            )
            raise Unsupported(f"{name}: {why}")
        args = read_arguments(name, arguments)
        session = PolicySession(
            tool=name,
            engine=self._engine,
            identity=self._identity,
            tiers=self._tiers,
            policy=self._policy,
            previews=self.previews,
            bounds=self._bounds,
            media_probe=self._probe,
            share_agent=share_agent,
        )
        return await tool.run(session, self._args[name], args)
