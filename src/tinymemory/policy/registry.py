"""The registry of the memory__ tools: which tools there are, in the order they are offered.

`PolicyTools` dispatches through it, the guidance (and so every spec) is rendered from it, and the
service routes each tool at the route it declares. Adding a tool is its module in `policy/catalog/` and
its line here (see docs/architecture/tools.md).
"""

from __future__ import annotations

from tinymemory.policy.catalog import (
    memory__forget,
    memory__list,
    memory__open,
    memory__recall,
    memory__remember,
)
from tinymemory.policy.session import PolicyCatalog
from tinymemory.tools.declaration import Catalog

POLICY_TOOLS: PolicyCatalog = Catalog(
    (
        memory__remember.TOOL,
        memory__recall.TOOL,
        memory__open.TOOL,
        memory__list.TOOL,
        memory__forget.TOOL,
    )
)

MEMORY_REMEMBER = memory__remember.TOOL.name
MEMORY_RECALL = memory__recall.TOOL.name
MEMORY_OPEN = memory__open.TOOL.name
MEMORY_LIST = memory__list.TOOL.name
MEMORY_FORGET = memory__forget.TOOL.name
POLICY_TOOL_NAMES: tuple[str, ...] = POLICY_TOOLS.names()
POLICY_READ_TOOLS: tuple[str, ...] = POLICY_TOOLS.read_names()
