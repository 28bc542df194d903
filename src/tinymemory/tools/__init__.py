"""tinymemory.tools: the seven agent memory tools over any MemoryEngine, scoped by the host.

A host builds one `MemoryTools` per agent session from the session's identity, hands `specs()` to its
tool runtime, and routes the model's calls to `call()`. The namespace written to and the reach read from
are fixed here, never taken from the model. This package imports no tool runtime; see
`tinymemory.adapters`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tinymemory.api import DEFAULT_LIMIT, InvalidRequest, MemoryEngine, Namespace, Reach, Unsupported
from tinymemory.api.echo import echo
from tinymemory.tools.args import MAX_IDS, MAX_LIMIT
from tinymemory.tools.declaration import Catalog, Tool, always, named_for
from tinymemory.tools.preview import ResultBounds
from tinymemory.tools.registry import (
    MEMORY_EXPLORE,
    MEMORY_FETCH,
    MEMORY_FORGET,
    MEMORY_GET,
    MEMORY_LIST,
    MEMORY_RECALL,
    MEMORY_STORE,
    MEMORY_TOOLS,
    READ_TOOLS,
    TOOL_NAMES,
    WRITE_TOOLS,
    MemoryCatalog,
    build_specs,
)
from tinymemory.tools.scope import MemoryTool, Modes, Session, ToolScope
from tinymemory.tools.spec import ToolHints, ToolSpec
from tinymemory.tools.strict import read_arguments


class MemoryTools:
    """The tools for one scope. Builder methods return a new instance; an instance never changes."""

    __slots__ = ("_bounds", "_catalog", "_engine", "_scope", "_zone")

    def __init__(
        self,
        engine: MemoryEngine,
        scope: ToolScope | None = None,
        *,
        zone: tzinfo | None = None,
        bounds: ResultBounds | None = None,
        catalog: MemoryCatalog = MEMORY_TOOLS,
    ):
        self._engine = engine
        self._scope = scope if scope is not None else ToolScope()
        self._zone = zone
        self._bounds = bounds if bounds is not None else ResultBounds()
        self._catalog = catalog

    @classmethod
    def with_scope(cls, engine: MemoryEngine, scope: ToolScope) -> MemoryTools:
        """The tools over `engine` confined to `scope`: the host fixes the namespace and reach there, so no
        tool call can name another."""
        return cls(engine, scope)

    @property
    def engine(self) -> MemoryEngine:
        """The engine every tool call reads and writes."""
        return self._engine

    @property
    def scope(self) -> ToolScope:
        """The scope the host fixed: where writes land, what reads may reach, and whether writes are
        offered."""
        return self._scope

    @property
    def zone(self) -> tzinfo | None:
        """The zone refers_to dates are read in; None is the host machine's local zone."""
        return self._zone

    @property
    def bounds(self) -> ResultBounds:
        """How much one tool result may hold (see `with_bounds`)."""
        return self._bounds

    @property
    def catalog(self) -> MemoryCatalog:
        """The tools these are drawn from (`tools.registry.MEMORY_TOOLS` unless the host added its own)."""
        return self._catalog

    def _with(
        self,
        scope: ToolScope | None = None,
        zone: tzinfo | None = None,
        bounds: ResultBounds | None = None,
        catalog: MemoryCatalog | None = None,
    ) -> MemoryTools:
        return MemoryTools(
            self._engine,
            scope if scope is not None else self._scope,
            zone=zone if zone is not None else self._zone,
            bounds=bounds if bounds is not None else self._bounds,
            catalog=catalog if catalog is not None else self._catalog,
        )

    def placed_at(self, place: Namespace | str) -> MemoryTools:
        """Write to `place` and read it and its ancestors (the reach resets to `Reach.of(place)`)."""
        ns = place if isinstance(place, Namespace) else Namespace.parse(place, field="place")
        return self._with(scope=ToolScope(ns, Reach.of(ns), self._scope.writes))

    def reach(self, reach: Reach | None) -> MemoryTools:
        """Confine reads and forgets to `reach` (None: every namespace)."""
        return self._with(scope=ToolScope(self._scope.place, reach, self._scope.writes))

    def read_only(self) -> MemoryTools:
        """Offer no write tools; a write call is then Unsupported."""
        return self._with(scope=replace(self._scope, writes=False))

    def in_zone(self, zone: tzinfo | str) -> MemoryTools:
        """Read refers_to dates in `zone` (a tzinfo or an IANA name such as `Europe/Paris`)."""
        if isinstance(zone, str):
            try:
                zone = ZoneInfo(zone)
            except (ZoneInfoNotFoundError, ValueError):
                raise InvalidRequest(f"tools: `zone` `{echo(zone)}` is not a known time zone") from None
        return self._with(zone=zone)

    def with_bounds(
        self, *, preview_bytes: int | None = None, result_bytes: int | None = None
    ) -> MemoryTools:
        """Show texts above `preview_bytes` as previews and keep each result within `result_bytes`
        (bytes of result JSON; defaults 8192 and 65536, see `tools.preview`)."""
        bounds = ResultBounds(
            self._bounds.preview_bytes if preview_bytes is None else preview_bytes,
            self._bounds.result_bytes if result_bytes is None else result_bytes,
        )
        return self._with(bounds=bounds)

    def with_tool(self, tool: MemoryTool) -> MemoryTools:
        """These tools and a host's own `tool` (declared like the built-in ones, see `tools.catalog`),
        offered after them; a name already offered is an InvalidRequest."""
        return self._with(catalog=self._catalog.with_tool(tool))

    def specs(self) -> list[ToolSpec]:
        """The tools this scope offers, built fresh: cheap enough to call per session."""
        return build_specs(
            self._engine.descriptor.fetch_modes, writes=self._scope.writes, catalog=self._catalog
        )

    def names(self) -> list[str]:
        """The names of the tools this scope and engine offer, in the order `specs` describes them."""
        return [s.name for s in self.specs()]

    async def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        """Run one tool call and return its JSON-ready result.

        Raises InvalidRequest for a bad name or bad arguments, Unsupported for a tool this scope or
        engine does not offer, and whatever the engine raises, its message led by the tool's name.
        Nothing is written on an error.
        """
        tool = self._catalog.get(name) if isinstance(name, str) else None
        if tool is None:
            offered = ", ".join(self.names())
            raise InvalidRequest(f"`{echo(name, 40)}` is not a memory tool (offered: {offered})")
        if tool.writes and not self._scope.writes:
            raise Unsupported(f"{name}: these memory tools are read-only, so {name} is not offered")
        args = read_arguments(name, arguments)
        declared = tool.arguments(self._engine.descriptor.fetch_modes)
        if declared is None:
            raise Unsupported(f"{name}: {tool.not_offered}, so {name} is not offered")
        session = Session(
            tool=name, engine=self._engine, scope=self._scope, zone=self._zone, bounds=self._bounds
        )
        return await tool.run(session, declared, args)


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_IDS",
    "MAX_LIMIT",
    "MEMORY_EXPLORE",
    "MEMORY_FETCH",
    "MEMORY_FORGET",
    "MEMORY_GET",
    "MEMORY_LIST",
    "MEMORY_RECALL",
    "MEMORY_STORE",
    "MEMORY_TOOLS",
    "READ_TOOLS",
    "TOOL_NAMES",
    "WRITE_TOOLS",
    "Catalog",
    "MemoryCatalog",
    "MemoryTool",
    "MemoryTools",
    "Modes",
    "ResultBounds",
    "Session",
    "Tool",
    "ToolHints",
    "ToolScope",
    "ToolSpec",
    "always",
    "build_specs",
    "named_for",
]
