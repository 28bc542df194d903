"""tinymemory: memory for LLM agents.

`Memory` is the synchronous facade and `AsyncMemory` the same for async hosts; `tinymemory.api` holds
the contract (namespaces, reaches, items, requests, the async MemoryEngine protocol);
`tinymemory.engines.sqlite` is the embedded default engine.

The names below load on first use (PEP 562), so `import tinymemory` alone (as `tinymemory --version`
and every submodule import do) costs nothing; `from tinymemory import Memory` works as ever.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from tinymemory.async_memory import AsyncMemory
    from tinymemory.memory import Memory

from tinymemory._version import __version__

_API_NAMES = (
    "About",
    "FetchMode",
    "InvalidRequest",
    "ItemKind",
    "ItemMeta",
    "MemoryEngine",
    "MetaFilter",
    "Namespace",
    "NewItem",
    "Reach",
    "TinyMemoryError",
)
_LAZY = {
    **dict.fromkeys(_API_NAMES, "tinymemory.api"),
    "AsyncMemory": "tinymemory.async_memory",
    "Memory": "tinymemory.memory",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "About",
    "AsyncMemory",
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
