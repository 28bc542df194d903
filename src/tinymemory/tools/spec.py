"""ToolSpec and ToolHints: a tool as a host's runtime is told about it, and the result bounds.

A spec is runtime-neutral (name, description, JSON Schema); every spec of the built-in tools is derived
from that tool's declaration (`tools.declaration`). The schemas are closed (`additionalProperties:
false` on every object) and use only keywords that strict function-calling runtimes accept, so one
definition serves MCP, OpenAI and Anthropic alike. Rules a closed schema cannot express (exactly one
store shape, ids or filter) are enforced on reading and stated in the descriptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Result bounds (see tools/preview.py), in bytes of the compact result JSON. A text above PREVIEW_BYTES
# comes back as its opening (the 8 KiB of seed 003's inline threshold); one result holds at most
# RESULT_BYTES. Hosts change both per session with MemoryTools.with_bounds.
PREVIEW_BYTES = 8192
RESULT_BYTES = 65536
MIN_PREVIEW_BYTES = 64

# What the reading tools tell the model about previews (the numbers are the host's, so none is named).
LONG_TEXTS = (
    "A long text comes back as its opening with truncated: true and its full size in bytes; "
    "call memory_get with its id to read all of it."
)


@dataclass(frozen=True, slots=True)
class ToolHints:
    """What a runtime may tell its client about a tool's effects (MCP's tool annotations).

    `read_only`: it changes nothing. `replay_safe`: a write that deletes nothing, so calling it again
    with the same arguments changes nothing more. The default is the cautious one: a write that may
    delete."""

    read_only: bool = False
    replay_safe: bool = False


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A runtime-neutral tool: what most tool runtimes need, and nothing tied to any of them."""

    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)
    hints: ToolHints = field(default_factory=ToolHints)

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain dict (name, description, JSON Schema parameters), the shape most tool
        runtimes take as is."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}
