"""Tool names, descriptions, result bounds and the specs: what a host's model is told about the seven tools.

Each tool's JSON Schema is its argument declaration's (`tools.args`), so the schema and the reading of
a call come from one place. The schemas are closed (`additionalProperties: false` on every object) and
use only keywords that strict function-calling runtimes accept, so one definition serves MCP, OpenAI
and Anthropic alike. Rules a closed schema cannot express (exactly one store shape, ids or filter) are
enforced on reading and stated in the descriptions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tinymemory.api import FetchMode
from tinymemory.tools import args
from tinymemory.tools.args import DEFAULT_LIMIT as DEFAULT_LIMIT
from tinymemory.tools.args import MAX_IDS as MAX_IDS
from tinymemory.tools.args import MAX_LIMIT as MAX_LIMIT
from tinymemory.tools.args import MIN_LIMIT as MIN_LIMIT
from tinymemory.tools.fields import Shape

MEMORY_RECALL = "memory_recall"
MEMORY_FETCH = "memory_fetch"
MEMORY_LIST = "memory_list"
MEMORY_GET = "memory_get"
MEMORY_EXPLORE = "memory_explore"
MEMORY_STORE = "memory_store"
MEMORY_FORGET = "memory_forget"

READ_TOOLS: tuple[str, ...] = (MEMORY_RECALL, MEMORY_FETCH, MEMORY_LIST, MEMORY_GET, MEMORY_EXPLORE)
WRITE_TOOLS: tuple[str, ...] = (MEMORY_STORE, MEMORY_FORGET)
TOOL_NAMES: tuple[str, ...] = READ_TOOLS + WRITE_TOOLS

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
class ToolSpec:
    """A runtime-neutral tool: what most tool runtimes need, and nothing tied to any of them."""

    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain dict (name, description, JSON Schema parameters), the shape most tool
        runtimes take as is."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


DESCRIPTIONS: dict[str, str] = {
    MEMORY_RECALL: "Answer a question from memory. Returns a short answer and the memories it cites. "
    + LONG_TEXTS,
    MEMORY_FETCH: "Search memory and return the best matching memories, ranked, with a cursor for more. "
    + LONG_TEXTS,
    MEMORY_LIST: "Browse memory, newest first, with a cursor for more. " + LONG_TEXTS,
    MEMORY_GET: "Read memories by id, with their whole text. Ids that cannot be read come back in missing. "
    "Ids that did not fit in this result come back in next_ids: call memory_get again with them. "
    "A text too long for any single result comes back cut, with truncated: true and its full size "
    "in bytes.",
    MEMORY_EXPLORE: "Count memory by one facet (kind, source, tag, file...) to see what is remembered.",
    MEMORY_STORE: "Remember something. Give exactly one of learning, document or conversation. "
    "Storing the same memory again is a replay, not a duplicate.",
    MEMORY_FORGET: "Forget memories, by ids or by a filter that sets at least one field (not both).",
}


def shapes(modes: tuple[FetchMode, ...]) -> dict[str, Shape]:
    """Every tool's arguments, by tool name, for an engine serving `modes` (no memory_fetch without)."""
    out = {MEMORY_RECALL: args.RECALL}
    if modes:
        out[MEMORY_FETCH] = args.fetch(modes)
    out |= {
        MEMORY_LIST: args.LIST,
        MEMORY_GET: args.GET,
        MEMORY_EXPLORE: args.EXPLORE,
        MEMORY_STORE: args.STORE,
        MEMORY_FORGET: args.FORGET,
    }
    return out


def build_specs(fetch_modes: Iterable[FetchMode], *, writes: bool) -> list[ToolSpec]:
    """The tools offered for an engine serving `fetch_modes`; no memory_fetch when it serves none."""
    return [
        ToolSpec(name, DESCRIPTIONS[name], shape.schema())
        for name, shape in shapes(tuple(fetch_modes)).items()
        if writes or name not in WRITE_TOOLS
    ]
