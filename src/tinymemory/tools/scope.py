"""ToolScope: what the host fixes for a tool session, so the model never chooses whose memory it touches.

Also the shapes every memory_ tool is declared with: the context its spec is built in (`Modes`, the fetch
modes the engine serves) and the `Session` one call runs with (`MemoryTool`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import tzinfo
from typing import TypeAlias

from tinymemory.api import FetchMode, MemoryEngine, MetaFilter, Namespace, Reach, Source
from tinymemory.tools.declaration import Tool
from tinymemory.tools.fields import Shape
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


Modes: TypeAlias = tuple[FetchMode, ...]  # what a memory_ tool's spec may depend on: the modes served
MemoryTool: TypeAlias = Tool[Modes, Session, Shape]


def scoped(session: Session, flt: MetaFilter | None) -> MetaFilter:
    """Invariant 2: whatever the model asked (or no filter at all), the reach is the host's."""
    return replace(flt or MetaFilter(), namespace=None, reach=session.scope.reach)
