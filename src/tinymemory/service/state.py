"""ServiceState: the one engine, the verifier, the policies and the registry a service process shares,
and the tool sets it builds for each verified caller."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tinymemory.api import MemoryEngine, Namespace
from tinymemory.lifecycle.layout import MemoryLayout
from tinymemory.policy import Identity, PolicyTools, Registration, render_guidance
from tinymemory.service.auth import Authenticator, Caller
from tinymemory.service.errors import Forbidden
from tinymemory.service.policies import PolicyBook
from tinymemory.service.registry import AgentRecord, AgentRegistry
from tinymemory.service.settings import ServiceSettings
from tinymemory.tools import MemoryTools, ToolScope

if TYPE_CHECKING:  # the gate loads its embedder on first use
    from tinymemory.policy.gate import FactMatcher, GateJob

# Tool sets kept for reuse, one per policy, agent notes and registration (what the argument
# declarations and the guidance follow), before the memo starts over.
MAX_TOOL_TEMPLATES = 256
ToolsKey = tuple[bool, int, str | None, Registration]
# Tool sets rebound to one caller, kept for that caller's next call, before the memo starts over.
MAX_BOUND_TOOLS = 4096


@dataclass(slots=True)
class ServiceState:
    settings: ServiceSettings
    engine: MemoryEngine
    auth: Authenticator
    policies: PolicyBook
    registry: AgentRegistry
    ready: bool = False
    _matcher: FactMatcher | None = field(default=None, repr=False)
    _templates: dict[ToolsKey, PolicyTools] = field(default_factory=dict, repr=False)
    _bound: dict[tuple[ToolsKey, Caller], PolicyTools] = field(default_factory=dict, repr=False)

    async def agent_of(self, caller: Caller) -> AgentRecord | None:
        """The registry record of the agent the caller's token names (None: none named, or unregistered,
        which runs with the default switches and no notes)."""
        if caller.workspace is None or caller.agent is None:
            return None
        return await self.registry.cached(caller.workspace, caller.agent)

    async def guidance(self, caller: Caller, *, gateway: bool = False) -> dict[str, Any]:
        """The tool guidance of the caller's workspace, with its agent's notes unless `gateway` (the
        MCP gateway serves no particular agent, so it shows the workspace notes only)."""
        workspace = caller.need_workspace("tool-guidance")
        agent = None if gateway else await self.agent_of(caller)
        notes = agent.notes if agent else None
        return render_guidance(self.policies.bound(workspace), None, notes, gateway=gateway)

    async def policy_tools(self, caller: Caller, *, gateway: bool = False) -> PolicyTools:
        """The memory__ tools of a verified user (403 for an API key, 401 for anonymous).

        What the tools are declared and described by (the workspace's policy, the agent's notes and
        registration) is read on every call; the tools are built once for each such combination and
        rebound to each caller's own identity, so a caller's tools always act for that caller's tiers,
        under the policy and notes in force now. A rebound set is kept for the same caller under the
        same key (a set never changes), so a caller's next call skips rebinding."""
        identity = caller.need_user("memory")
        if gateway:
            identity = caller.identity(agent=False)
        agent = None if gateway else await self.agent_of(caller)
        policy = self.policies.bound(identity.workspace)
        notes = agent.notes if agent is not None else None
        registration = agent.registration() if agent is not None else Registration()
        # A policy of the book lives as long as the service, so its id names it.
        key: ToolsKey = (gateway, id(policy), notes, registration)
        bound = self._bound.get((key, caller))
        if bound is not None:
            return bound
        template = self._templates.get(key)
        if template is None:
            template = PolicyTools.for_identity(
                self.engine, identity, policy, notes, registration=registration, gateway=gateway
            )
            if len(self._templates) >= MAX_TOOL_TEMPLATES:
                self._templates.clear()
            self._templates[key] = template
        bound = template.rebound(identity)
        if len(self._bound) >= MAX_BOUND_TOOLS:
            self._bound.clear()
        self._bound[(key, caller)] = bound
        return bound

    def core_tools(self, caller: Caller) -> MemoryTools:
        """Seed 000's seven tools for a verified user: writes land in the user's tier, reads see every
        tier the identity has, forgets touch only the user's own tiers."""
        identity: Identity = caller.need_user("memory")
        tiers = identity.tiers
        place = tiers.write_place
        if place is None:  # a verified user always has a user tier
            raise Forbidden("memory: this token names no user")
        scope = ToolScope(place, tiers.read_reach, writes=True, forget_reach=tiers.own_reach)
        return MemoryTools.with_scope(self.engine, scope)

    def gate_matcher(self) -> FactMatcher:
        if self._matcher is None:
            from tinymemory.policy.gate import gate_matcher

            self._matcher = gate_matcher()
        return self._matcher

    def gate_job(self) -> GateJob:
        from tinymemory.policy.gate import GateJob

        return GateJob(self.engine, self.policies.effective, self.gate_matcher())

    def institutional_layout(self, workspace: str) -> MemoryLayout:
        return InstitutionalLayout.for_workspace(workspace)


@dataclass(frozen=True, slots=True)
class InstitutionalLayout(MemoryLayout):
    """Ingested documents land in the institutional tier itself (`workspace:W`), which every user of the
    workspace reads; a document's source is kept in its metadata rather than in a node below."""

    @classmethod
    def for_workspace(cls, workspace: str) -> InstitutionalLayout:
        return cls(Identity(workspace).tiers.institutional)

    def brain(self, source: str) -> Namespace:
        return self.root
