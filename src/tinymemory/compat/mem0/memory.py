"""`Memory`: mem0 2.x's synchronous memory API, so a script switches with one import.

    from tinymemory.compat.mem0 import Memory      # was: from mem0 import Memory

Derived from `AsyncMemory` (tinymemory._sync): each method is one line naming the coroutine it runs on
a private event loop thread (as `tinymemory.Memory` does), with that coroutine's signature and
docstring, so it works in plain scripts and inside notebooks that already run a loop.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from tinymemory._sync import SyncFacade, blocking, derived
from tinymemory.api import MemoryEngine, Namespace
from tinymemory.compat.mem0.async_memory import AsyncMemory
from tinymemory.compat.mem0.errors import checked
from tinymemory.llm import LLM, LLMConfig


@derived(AsyncMemory)
class Memory(SyncFacade[AsyncMemory]):
    """mem0's `Memory`, served by a tinymemory engine (the embedded SQLite file unless told).

    >>> m = Memory()                                   # or Memory.from_config({...}), Memory(path=...)
    >>> m.add("I prefer tea", user_id="alice", infer=False)
    >>> found = m.search("what does alice drink?", filters={"user_id": "alice"})

    The methods, their arguments and result shapes are mem0's, and each one's documentation is
    `AsyncMemory`'s; docs/integrations/mem0.md maps them onto namespaces and says what differs.
    Calling a closed Memory raises RuntimeError.
    """

    @checked("memory")
    def __init__(
        self,
        config: Any = None,
        *,
        path: str | Path | None = None,
        engine: MemoryEngine | None = None,
        namespace: str | Namespace | None = None,
        llm: LLM | LLMConfig | None = None,
        embedder: Any = "default",
    ) -> None:
        """The same arguments as `AsyncMemory`: a mem0 config dict, and where the store is."""
        super().__init__(
            AsyncMemory(config, path=path, engine=engine, namespace=namespace, llm=llm, embedder=embedder)
        )

    @classmethod
    def from_config(cls, config_dict: Any) -> Memory:
        """A memory from a mem0 config dict (see `AsyncMemory.from_config`)."""
        return cls(config_dict)

    @property
    def engine(self) -> MemoryEngine:
        """The engine serving this memory (for tinymemory's own APIs over the same store)."""
        return self._async.engine

    @property
    def root(self) -> Namespace:
        """The namespace every memory of this API lives under."""
        return self._async.root

    def _closing(self) -> Coroutine[Any, Any, None]:
        return self._async.aclose()

    add = blocking(AsyncMemory.add)
    get = blocking(AsyncMemory.get)
    get_all = blocking(AsyncMemory.get_all)
    search = blocking(AsyncMemory.search)
    update = blocking(AsyncMemory.update)
    delete = blocking(AsyncMemory.delete)
    delete_all = blocking(AsyncMemory.delete_all)
    history = blocking(AsyncMemory.history)
    reset = blocking(AsyncMemory.reset)
