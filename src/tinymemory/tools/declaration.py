"""A tool declared once, and the catalog of tools a dispatcher, a runtime adapter and the service read.

A `Tool` says everything about one tool: its name and description, its arguments (a declaration that
gives both the JSON Schema and the readers, see `tools.fields`), the handler that runs a call, the
model that documents its result, and whether it writes. Specs (`Catalog.specs`), MCP annotations
(`ToolSpec.hints`), the dispatch of `MemoryTools` and `PolicyTools`, and the service's routes are all
derived from it, so a tool lives in one module (`tools/catalog/`, `policy/catalog/`).

Both tool surfaces use this one type. What differs is the context a tool is described in (the fetch
modes an engine serves for the memory_ tools, a policy for the memory__ tools) and the session a call
runs with.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from tinymemory.api import InvalidRequest, TinyMemoryError
from tinymemory.tools.spec import ToolHints, ToolSpec
from tinymemory.tools.strict import Obj

C = TypeVar("C")  # what a tool's description and arguments depend on (fetch modes, a policy)
S = TypeVar("S")  # what one call runs with (a `Session`, a `PolicySession`)
A = TypeVar("A", bound="Arguments")

# The operation an engine names at the start of its messages (`fetch: `, `list: `, `write: `).
_OP_PREFIX = re.compile(r"[a-z][a-z_]*: ")


class Arguments(Protocol):
    """A tool's arguments as declared in one context: a `tools.fields.Shape`, or an object of fields
    whose `schema()` is the shape's."""

    def schema(self) -> dict[str, Any]:
        """The JSON Schema the model is told."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool(Generic[C, S, A]):
    """One tool, declared once.

    `arguments(context)` is the tool's argument declaration in a context, or None when the tool is not
    offered there (`not_offered` says why); the handler gets that declaration with the raw arguments,
    so it reads the call through the same fields the schema came from. `result` is the model that
    documents a successful result and `answers` says in a line what it holds (the service's OpenAPI
    answer); `route` is the tool's own HTTP route, when the service serves it as one.
    """

    name: str
    description: str | Callable[[C], str]
    arguments: Callable[[C], A | None]
    handler: Callable[[S, A, Obj], Awaitable[dict[str, Any]]]
    result: Any
    answers: str
    writes: bool
    replay_safe: bool = False  # a write that deletes nothing (see ToolHints)
    route: str | None = None
    not_offered: str = "it is not offered here"

    def describe(self, context: C) -> str:
        """The description the model reads in `context`."""
        return self.description if isinstance(self.description, str) else self.description(context)

    @property
    def hints(self) -> ToolHints:
        """What a runtime may tell its client about the tool's effects, from `writes` and `replay_safe`."""
        return ToolHints(read_only=not self.writes, replay_safe=self.replay_safe)

    def spec(self, context: C) -> ToolSpec | None:
        """The spec a runtime is given in `context`; None when the tool is not offered there."""
        declared = self.arguments(context)
        if declared is None:
            return None
        return ToolSpec(self.name, self.describe(context), declared.schema(), self.hints)

    async def run(self, session: S, declared: A, arguments: Obj) -> dict[str, Any]:
        """Run one call; an error's message is led by this tool's name (see `named_for`)."""
        try:
            return await self.handler(session, declared, arguments)
        except TinyMemoryError as exc:
            raise named_for(self.name, exc) from exc


@dataclass(frozen=True, slots=True)
class Catalog(Generic[C, S]):
    """Tools in the order they are offered. Immutable: `with_tool` returns a new catalog."""

    tools: tuple[Tool[C, S, Any], ...]

    def __post_init__(self) -> None:
        names = [t.name for t in self.tools]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise InvalidRequest(f"tool catalog: `{repeated[0]}` is declared twice")

    def __iter__(self) -> Iterator[Tool[C, S, Any]]:
        return iter(self.tools)

    def __contains__(self, name: object) -> bool:
        return any(t.name == name for t in self.tools)

    def get(self, name: object) -> Tool[C, S, Any] | None:
        """The tool named `name`, if the catalog has one."""
        return next((t for t in self.tools if t.name == name), None)

    def with_tool(self, tool: Tool[C, S, Any]) -> Catalog[C, S]:
        """This catalog and `tool`, offered after the others (a host's own tool, say)."""
        return Catalog((*self.tools, tool))

    def names(self) -> tuple[str, ...]:
        """Every tool's name, in the order they are offered."""
        return tuple(t.name for t in self.tools)

    def read_names(self) -> tuple[str, ...]:
        """The names of the tools that change nothing (offered to read-only scopes too)."""
        return tuple(t.name for t in self.tools if not t.writes)

    def write_names(self) -> tuple[str, ...]:
        """The names of the tools that write (or forget)."""
        return tuple(t.name for t in self.tools if t.writes)

    def specs(self, context: C, *, writes: bool = True) -> list[ToolSpec]:
        """The specs of the tools offered in `context` (the write tools only with `writes`)."""
        specs = (t.spec(context) for t in self.tools if writes or not t.writes)
        return [s for s in specs if s is not None]


def named_for(tool: str, exc: TinyMemoryError) -> TinyMemoryError:
    """The same error, its message led by the tool's name: the model called `memory_fetch`, not the
    engine's `fetch`, so "fetch: `cursor` ..." reads "memory_fetch: `cursor` ..."."""
    message = exc.message
    if message.startswith(f"{tool}: "):
        return exc
    op = _OP_PREFIX.match(message)
    rest = message[op.end() :] if op else message
    return type(exc)(f"{tool}: {rest}")


def always(declared: A) -> Callable[[object], A]:
    """`arguments` for a tool whose arguments are the same in every context."""
    return lambda _context: declared
