"""A mem0-compatible memory API over tinymemory: switching is one import.

    from tinymemory.compat.mem0 import Memory          # was: from mem0 import Memory
    m = Memory()
    m.add("I prefer tea", user_id="alice", infer=False)
    m.search("what does alice drink?", filters={"user_id": "alice"})

`Memory` and `AsyncMemory` take mem0 2.x's methods, arguments and result shapes; memories live in a
tinymemory engine under namespaces made of the session ids. See docs/integrations/mem0.md.
"""

from tinymemory.compat.mem0.async_memory import AsyncMemory
from tinymemory.compat.mem0.errors import InvalidInput, MemoryNotFound, UnsupportedFeature
from tinymemory.compat.mem0.memory import Memory

__all__ = ["AsyncMemory", "InvalidInput", "Memory", "MemoryNotFound", "UnsupportedFeature"]
