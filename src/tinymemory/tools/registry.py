"""The registry of the memory_ tools: which tools there are, in the order they are offered.

Everything else reads it: `MemoryTools` dispatches through it, `build_specs` describes it, the MCP
adapter takes its annotations from the specs, and the service routes the tools that declare a route.
Adding a tool is its module in `tools/catalog/` and its line here (see docs/architecture/tools.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tinymemory.api import FetchMode
from tinymemory.tools.catalog import (
    memory_explore,
    memory_fetch,
    memory_forget,
    memory_get,
    memory_list,
    memory_recall,
    memory_store,
)
from tinymemory.tools.declaration import Catalog
from tinymemory.tools.fields import Shape
from tinymemory.tools.scope import Modes, Session
from tinymemory.tools.spec import ToolSpec

MemoryCatalog = Catalog[Modes, Session]

MEMORY_TOOLS: MemoryCatalog = Catalog(
    (
        memory_recall.TOOL,
        memory_fetch.TOOL,
        memory_list.TOOL,
        memory_get.TOOL,
        memory_explore.TOOL,
        memory_store.TOOL,
        memory_forget.TOOL,
    )
)

MEMORY_RECALL = memory_recall.TOOL.name
MEMORY_FETCH = memory_fetch.TOOL.name
MEMORY_LIST = memory_list.TOOL.name
MEMORY_GET = memory_get.TOOL.name
MEMORY_EXPLORE = memory_explore.TOOL.name
MEMORY_STORE = memory_store.TOOL.name
MEMORY_FORGET = memory_forget.TOOL.name

READ_TOOLS: tuple[str, ...] = MEMORY_TOOLS.read_names()
WRITE_TOOLS: tuple[str, ...] = MEMORY_TOOLS.write_names()
TOOL_NAMES: tuple[str, ...] = MEMORY_TOOLS.names()


def build_specs(
    fetch_modes: Iterable[FetchMode], *, writes: bool, catalog: MemoryCatalog = MEMORY_TOOLS
) -> list[ToolSpec]:
    """The tools offered for an engine serving `fetch_modes`; no memory_fetch when it serves none."""
    return catalog.specs(tuple(fetch_modes), writes=writes)


def shapes(modes: tuple[FetchMode, ...], catalog: MemoryCatalog = MEMORY_TOOLS) -> dict[str, Shape]:
    """Every offered tool's arguments, by tool name, for an engine serving `modes`."""
    declared: dict[str, Any] = {t.name: t.arguments(modes) for t in catalog}
    return {name: shape for name, shape in declared.items() if shape is not None}
