"""`Memory`: mem0 2.x's synchronous memory API, so a script switches with one import.

    from tinymemory.compat.mem0 import Memory      # was: from mem0 import Memory

Each call runs `AsyncMemory`'s coroutine on a private event loop thread (as `tinymemory.Memory`
does), so it works in plain scripts and inside notebooks that already run a loop.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

from tinymemory._loop import LoopThread
from tinymemory.api import MemoryEngine, Namespace
from tinymemory.compat.mem0.async_memory import _UNSET, AsyncMemory
from tinymemory.compat.mem0.errors import checked
from tinymemory.llm import LLM, LLMConfig


class Memory:
    """mem0's `Memory`, served by a tinymemory engine (the embedded SQLite file unless told).

    >>> m = Memory()                                   # or Memory.from_config({...}), Memory(path=...)
    >>> m.add("I prefer tea", user_id="alice", infer=False)
    >>> found = m.search("what does alice drink?", filters={"user_id": "alice"})

    The methods, their arguments and result shapes are mem0's; see `AsyncMemory` for each one and
    docs/integrations/mem0.md for the mapping onto namespaces and what differs. Calling a closed
    Memory raises RuntimeError.
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
        self._async = AsyncMemory(
            config, path=path, engine=engine, namespace=namespace, llm=llm, embedder=embedder
        )
        self._loop = LoopThread()

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

    def close(self) -> None:
        """Close the engine and the loop thread."""
        try:
            self._loop.run(self._async.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @checked("add")
    def add(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        timestamp: Any = None,
        expiration_date: Any = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """Store memories from `messages` (see `AsyncMemory.add`)."""
        return self._loop.run(
            self._async.add(
                messages,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                metadata=metadata,
                timestamp=timestamp,
                expiration_date=expiration_date,
                infer=infer,
                memory_type=memory_type,
                prompt=prompt,
            )
        )

    @checked("get")
    def get(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any] | None:
        """The memory, or None (see `AsyncMemory.get`)."""
        return self._loop.run(self._async.get(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id))

    @checked("get_all")
    def get_all(
        self,
        *,
        filters: dict[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The scope's memories, newest first (see `AsyncMemory.get_all`)."""
        return self._loop.run(
            self._async.get_all(
                filters=filters,
                top_k=top_k,
                show_expired=show_expired,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                limit=limit,
            )
        )

    @checked("search")
    def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: dict[str, Any] | None = None,
        threshold: float | None = None,
        rerank: bool = False,
        explain: bool = False,
        reference_date: Any = None,
        show_expired: bool = False,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The scope's memories ranked for `query` (see `AsyncMemory.search`)."""
        return self._loop.run(
            self._async.search(
                query,
                top_k=top_k,
                filters=filters,
                threshold=threshold,
                rerank=rerank,
                explain=explain,
                reference_date=reference_date,
                show_expired=show_expired,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                limit=limit,
            )
        )

    @checked("update")
    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        """A new version of the memory, same id (see `AsyncMemory.update`)."""
        return self._loop.run(
            self._async.update(
                memory_id,
                text,
                metadata,
                expiration_date,
                data,
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
            )
        )

    @checked("delete")
    def delete(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        """Forget the memory and its versions (see `AsyncMemory.delete`)."""
        return self._loop.run(
            self._async.delete(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        )

    @checked("delete_all")
    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        """Delete every memory of the ids given (see `AsyncMemory.delete_all`)."""
        return self._loop.run(self._async.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id))

    @checked("history")
    def history(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """The memory's events, oldest first (see `AsyncMemory.history`)."""
        return self._loop.run(
            self._async.history(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        )

    @checked("reset")
    def reset(self) -> None:
        """Delete every memory this API wrote under the root (see `AsyncMemory.reset`)."""
        self._loop.run(self._async.reset())
