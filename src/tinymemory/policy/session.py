"""What one memory__ tool call runs with, fixed by the host from the verified identity and the policy,
and what a memory__ tool is described in (`PolicyContext`, `PolicyTool`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from tinymemory.api import GetRequest, MemoryEngine, MemoryItem, Reach, Ref
from tinymemory.policy.identity import Identity, Tiers
from tinymemory.policy.policy import MemoryPolicy
from tinymemory.tools.declaration import Catalog, Tool
from tinymemory.tools.preview import ResultBounds

# Says whether a media reference's content is still there (a blob store, a file share...).
MediaProbe = Callable[[Ref], Awaitable[bool]]
MAX_VERSIONS = 64  # supersession links followed from an old id to the current version


async def earlier_versions(engine: MemoryEngine, item: MemoryItem, reach: Reach) -> list[MemoryItem]:
    """The versions `item` superseded, newest first, as far as `reach` holds them (the chain, `item`
    included, cut at MAX_VERSIONS): what must go with it when it is forgotten."""
    found: list[MemoryItem] = []
    seen = {item.id}
    previous = item.supersedes
    while previous is not None and len(seen) < MAX_VERSIONS and previous not in seen:
        got = await engine.get(GetRequest(ids=(previous,), reach=reach))
        if not got.items:
            break
        found.append(got.items[0])
        seen.add(previous)
        previous = got.items[0].supersedes
    return found


@dataclass(frozen=True, slots=True)
class PolicySession:
    """One memory__ call's fixed surroundings: the engine, the verified identity and its tiers, the policy,
    and how results are bounded. The host builds it (`PolicyTools.call`); the model never chooses it."""

    tool: str
    engine: MemoryEngine
    identity: Identity
    tiers: Tiers  # the identity's tiers, computed once per PolicyTools
    policy: MemoryPolicy
    previews: bool  # memory__open is offered, so recall and list may answer with previews
    bounds: ResultBounds
    media_probe: MediaProbe | None = None
    # The agent a share is proposed to when the host names one apart from the scope (the MCP gateway,
    # which serves no agent of its own); None: the conversation's own agent.
    share_agent: str | None = None

    async def current(self, memory_id: str) -> MemoryItem | None:
        """The current version of the memory `memory_id` names, if this conversation can see it.

        An old version's id resolves to the version that superseded it (and so on), so an id the
        model holds keeps working after a correction. Unknown, forgotten and out-of-reach ids, and
        strings that are no id at all, are all None.
        """
        reach = self.tiers.read_reach
        seen: set[str] = set()
        wanted = memory_id
        for _ in range(MAX_VERSIONS):
            got = await self.engine.get(GetRequest(ids=(wanted,), reach=reach))
            if not got.items:
                return None
            item = got.items[0]
            if item.forgotten_at is not None:
                return None
            if item.superseded_by is None:
                return item
            seen.add(item.id)
            if item.superseded_by in seen:
                return None
            wanted = item.superseded_by
        return None


@dataclass(frozen=True, slots=True)
class PolicyContext:
    """What a memory__ tool's description and arguments follow: the effective policy (its types and
    relations become enums), whether memory__open is offered to read previews, whether this is the
    fallback (short descriptions, no enums) a runtime uses when no guidance can be had, and whether the
    tools are served by the MCP gateway (no agent of its own: memory__remember takes `agent`)."""

    policy: MemoryPolicy
    previews: bool = True
    fallback: bool = False
    gateway: bool = False

    @property
    def enums(self) -> bool:
        """Whether the schemas carry the policy's enums (every context but the fallback)."""
        return not self.fallback


PolicyTool: TypeAlias = Tool[PolicyContext, PolicySession, Any]
PolicyCatalog: TypeAlias = Catalog[PolicyContext, PolicySession]
