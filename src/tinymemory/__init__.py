"""tinymemory: memory for LLM agents.

`Memory` is the synchronous facade; `tinymemory.api` holds the contract (namespaces, reaches, items,
requests, the async MemoryEngine protocol); `tinymemory.engines.sqlite` is the embedded default engine.
"""

from tinymemory.api import (
    About,
    FetchMode,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    TinyMemoryError,
)
from tinymemory.memory import Memory

__version__ = "0.1.0"

__all__ = [
    "About",
    "FetchMode",
    "InvalidRequest",
    "ItemKind",
    "ItemMeta",
    "Memory",
    "MemoryEngine",
    "MetaFilter",
    "Namespace",
    "NewItem",
    "Reach",
    "TinyMemoryError",
    "__version__",
]
