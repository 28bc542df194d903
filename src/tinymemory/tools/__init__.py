"""tinymemory.tools: the seven agent memory tools over any MemoryEngine, scoped by the host.

A host builds one `MemoryTools` per agent session from the session's identity, hands `specs()` to its
tool runtime, and routes the model's calls to `call()`. The namespace written to and the reach read from
are fixed here, never taken from the model. This package imports no tool runtime; see
`tinymemory.adapters`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tinymemory.api import InvalidRequest, MemoryEngine, Namespace, Reach, TinyMemoryError, Unsupported
from tinymemory.tools import read, write
from tinymemory.tools.args import Obj, clip, read_arguments
from tinymemory.tools.preview import ResultBounds
from tinymemory.tools.scope import Session, ToolScope
from tinymemory.tools.spec import (
    DEFAULT_LIMIT,
    MAX_IDS,
    MAX_LIMIT,
    MEMORY_EXPLORE,
    MEMORY_FETCH,
    MEMORY_FORGET,
    MEMORY_GET,
    MEMORY_LIST,
    MEMORY_RECALL,
    MEMORY_STORE,
    READ_TOOLS,
    TOOL_NAMES,
    WRITE_TOOLS,
    ToolSpec,
    build_specs,
)

Handler = Callable[[Session, Obj], Awaitable[dict[str, Any]]]

# The operation an engine names at the start of its messages (`fetch: `, `list: `, `write: `).
_OP_PREFIX = re.compile(r"[a-z][a-z_]*: ")

dispatch: dict[str, Handler] = {
    MEMORY_RECALL: read.recall,
    MEMORY_FETCH: read.fetch,
    MEMORY_LIST: read.list_items,
    MEMORY_GET: read.get,
    MEMORY_EXPLORE: read.explore,
    MEMORY_STORE: write.store,
    MEMORY_FORGET: write.forget,
}


class MemoryTools:
    """The tools for one scope. Builder methods return a new instance; an instance never changes."""

    __slots__ = ("_bounds", "_engine", "_scope", "_zone")

    def __init__(
        self,
        engine: MemoryEngine,
        scope: ToolScope | None = None,
        *,
        zone: tzinfo | None = None,
        bounds: ResultBounds | None = None,
    ):
        self._engine = engine
        self._scope = scope if scope is not None else ToolScope()
        self._zone = zone
        self._bounds = bounds if bounds is not None else ResultBounds()

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

    def _rescoped(self, scope: ToolScope) -> MemoryTools:
        return MemoryTools(self._engine, scope, zone=self._zone, bounds=self._bounds)

    def placed_at(self, place: Namespace | str) -> MemoryTools:
        """Write to `place` and read it and its ancestors (the reach resets to `Reach.of(place)`)."""
        ns = place if isinstance(place, Namespace) else Namespace.parse(place, field="place")
        return self._rescoped(ToolScope(ns, Reach.of(ns), self._scope.writes))

    def reach(self, reach: Reach | None) -> MemoryTools:
        """Confine reads and forgets to `reach` (None: every namespace)."""
        return self._rescoped(ToolScope(self._scope.place, reach, self._scope.writes))

    def read_only(self) -> MemoryTools:
        """Offer no write tools; a write call is then Unsupported."""
        return self._rescoped(replace(self._scope, writes=False))

    def in_zone(self, zone: tzinfo | str) -> MemoryTools:
        """Read refers_to dates in `zone` (a tzinfo or an IANA name such as `Europe/Paris`)."""
        if isinstance(zone, str):
            try:
                zone = ZoneInfo(zone)
            except (ZoneInfoNotFoundError, ValueError):
                raise InvalidRequest(f"tools: `zone` `{clip(zone)}` is not a known time zone") from None
        return MemoryTools(self._engine, self._scope, zone=zone, bounds=self._bounds)

    def with_bounds(
        self, *, preview_bytes: int | None = None, result_bytes: int | None = None
    ) -> MemoryTools:
        """Show texts above `preview_bytes` as previews and keep each result within `result_bytes`
        (bytes of result JSON; defaults 8192 and 65536, see `tools.preview`)."""
        bounds = ResultBounds(
            self._bounds.preview_bytes if preview_bytes is None else preview_bytes,
            self._bounds.result_bytes if result_bytes is None else result_bytes,
        )
        return MemoryTools(self._engine, self._scope, zone=self._zone, bounds=bounds)

    def specs(self) -> list[ToolSpec]:
        """The tools this scope offers, built fresh: cheap enough to call per session."""
        return build_specs(self._engine.descriptor.fetch_modes, writes=self._scope.writes)

    def names(self) -> list[str]:
        """The names of the tools this scope and engine offer, in the order `specs` describes them."""
        return [s.name for s in self.specs()]

    async def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        """Run one tool call and return its JSON-ready result.

        Raises InvalidRequest for a bad name or bad arguments, Unsupported for a tool this scope or
        engine does not offer, and whatever the engine raises, its message led by the tool's name.
        Nothing is written on an error.
        """
        if not isinstance(name, str) or name not in dispatch:
            offered = ", ".join(self.names())
            raise InvalidRequest(f"`{clip(name, 40)}` is not a memory tool (offered: {offered})")
        if name in WRITE_TOOLS and not self._scope.writes:
            raise Unsupported(f"{name}: these memory tools are read-only, so {name} is not offered")
        args = read_arguments(name, arguments)
        session = Session(
            tool=name, engine=self._engine, scope=self._scope, zone=self._zone, bounds=self._bounds
        )
        try:
            return await dispatch[name](session, args)
        except TinyMemoryError as exc:
            raise named_for(name, exc) from exc


def named_for(tool: str, exc: TinyMemoryError) -> TinyMemoryError:
    """The same error, its message led by the tool's name: the model called `memory_fetch`, not the
    engine's `fetch`, so "fetch: `cursor` ..." reads "memory_fetch: `cursor` ..."."""
    message = exc.message
    if message.startswith(f"{tool}: "):
        return exc
    op = _OP_PREFIX.match(message)
    rest = message[op.end() :] if op else message
    return type(exc)(f"{tool}: {rest}")


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
    "READ_TOOLS",
    "TOOL_NAMES",
    "WRITE_TOOLS",
    "MemoryTools",
    "ResultBounds",
    "ToolScope",
    "ToolSpec",
    "dispatch",
]
