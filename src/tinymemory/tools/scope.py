"""ToolScope: what the host fixes for a tool session, so the model never chooses whose memory it touches."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo

from tinymemory.api import MemoryEngine, Namespace, Reach, Source
from tinymemory.tools.preview import ResultBounds


@dataclass(frozen=True, slots=True)
class ToolScope:
    """`place` receives every write; `reach` confines every read and forget (None: every namespace);
    `writes` says whether memory_store and memory_forget are offered. `forget_reach`, when set, narrows
    forgets further than reads (a user who reads the workspace's shared tiers forgets only their own)."""

    place: Namespace = field(default_factory=Namespace.root)
    reach: Reach | None = None
    writes: bool = True
    forget_reach: Reach | None = None  # None: forgets follow `reach`

    def __post_init__(self) -> None:
        if not isinstance(self.place, Namespace):
            raise TypeError("tool scope: `place` must be a Namespace (parse strings with Namespace.parse)")
        if self.reach is not None and not isinstance(self.reach, Reach):
            raise TypeError("tool scope: `reach` must be a Reach or None")
        if not isinstance(self.writes, bool):
            raise TypeError("tool scope: `writes` must be a bool")
        if self.forget_reach is not None and not isinstance(self.forget_reach, Reach):
            raise TypeError("tool scope: `forget_reach` must be a Reach or None")

    @property
    def forgets(self) -> Reach | None:
        """What memory_forget may touch."""
        return self.forget_reach if self.forget_reach is not None else self.reach

    @property
    def source(self) -> Source:
        """Stored items come from the agent, named when the place has an `agent:` segment."""
        return Source("agent", self.place.get("agent"))


@dataclass(frozen=True, slots=True)
class Session:
    """One tool call's fixed surroundings: the engine, the host's scope and the zone dates are read in."""

    tool: str
    engine: MemoryEngine
    scope: ToolScope
    zone: tzinfo | None  # None: the host machine's local zone
    bounds: ResultBounds = field(default_factory=ResultBounds)  # how much one result may hold
