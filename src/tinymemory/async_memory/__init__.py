"""`AsyncMemory`: the memory facade for async hosts, and the logic the sync `Memory` runs.

It owns one engine (the embedded SQLite engine unless you pass another) and one namespace. Writes land
at that namespace; reads see it, its ancestors and the documents ingested at any of them, unless a
wider or narrower `reach` is given. The same rule scopes the agent tools, context.md and holistic
recall it hands out.

Argument checking and request building live here only: `tinymemory.Memory` is a thin shell that runs
these coroutines on a private loop thread, so the two classes cannot drift apart. Every method fails
with the library's own errors, never a bare TypeError or ValueError: a missing, unknown or mistyped
argument is an `InvalidRequest` whose message starts with the method's name and names the argument
("fetch: `mode` `bogus` is not a fetch mode ..."), and nothing is written.

Modules: `facade` (AsyncMemory), `tools` (AsyncTools and the tool sets), `scope` (the default reach
and its holistic-recall scopes), `arguments` (argument checking shared with `Memory`).
"""

from tinymemory.async_memory.arguments import checked
from tinymemory.async_memory.facade import (
    BRIEF_TOKENS,
    DEFAULT_SOURCE,
    PACK_KINDS,
    PACK_TOKENS,
    AsyncMemory,
)
from tinymemory.async_memory.scope import brain_root, default_reach, lineage_scopes
from tinymemory.async_memory.tools import TOOL_FORMATS, TOOLSETS, AsyncTools

__all__ = [
    "BRIEF_TOKENS",
    "DEFAULT_SOURCE",
    "PACK_KINDS",
    "PACK_TOKENS",
    "TOOLSETS",
    "TOOL_FORMATS",
    "AsyncMemory",
    "AsyncTools",
    "brain_root",
    "checked",
    "default_reach",
    "lineage_scopes",
]
