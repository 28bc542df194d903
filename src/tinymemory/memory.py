"""`Memory`: the synchronous facade for scripts and notebooks, so a script never needs asyncio.

A thin shell over `tinymemory.async_memory.AsyncMemory`, derived from it (tinymemory._sync): every
method is one line naming the AsyncMemory method it runs, which carries that method's signature and
docstring; coroutines run on a private event loop thread (which also works inside a notebook's running
loop). The rules (where writes land, what reads see, how bad arguments are refused) are AsyncMemory's,
stated there once, so the two classes cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinymemory._loop import LoopThread
from tinymemory._sync import Forwarded, SyncFacade, blocking, derived, direct, forwarded, wrapping
from tinymemory.api import EngineDescriptor, MemoryEngine, Namespace, Reach
from tinymemory.async_memory import AsyncMemory, AsyncTools, checked

if TYPE_CHECKING:
    from tinymemory.adapters import ToolSet


@derived(AsyncTools)
class Tools:
    """One tool set a model is given, bound to the Memory that made it: `AsyncTools` called
    synchronously on that Memory's loop thread (see `Memory.tools`)."""

    __slots__ = ("_async", "_loop")

    def __init__(self, tools: AsyncTools, loop: LoopThread) -> None:
        """Wrap `tools`, running its calls on `loop` (the Memory's)."""
        self._async = tools
        self._loop = loop

    toolset: Forwarded[ToolSet] = forwarded(AsyncTools.toolset)
    names = direct(AsyncTools.names)
    specs = direct(AsyncTools.specs)
    call = blocking(AsyncTools.call)
    output = blocking(AsyncTools.output)


@derived(AsyncMemory)
class Memory(SyncFacade[AsyncMemory]):
    """Sync access to one memory store, placed at one namespace.

    >>> mem = Memory("./mem.db", namespace="team:acme/agent:writer")
    >>> mem.store("The user prefers dark roast coffee", tags=["preference"])
    >>> mem.fetch("what coffee does the user like").hits[0].item.text

    Writes land at `namespace`; reads see it, its ancestors and the documents ingested at any of
    them, unless `reach` says otherwise. Besides the engine's operations it gives context.md
    (`context_md`), holistic recall (`recall_context`), ingest into the brain (`ingest`,
    `ingest_text`) and the agent tool sets (`tools`). `AsyncMemory` has the same methods as
    coroutines, and the documentation of each method here is AsyncMemory's.

    Errors (all from `tinymemory.api.errors`): `InvalidRequest` for any bad, missing or unknown
    argument, naming the method and the field; `Unavailable` when the database or the embedder fails
    (retrying may help); `Conflict` for a database file written by a newer tinymemory. Calling a
    closed Memory raises RuntimeError. One Memory may be shared by threads; closing it from one lets
    the others' running calls finish.
    """

    @checked("memory")
    def __init__(
        self,
        path: str | Path | None = None,
        *,
        namespace: str | Namespace = "",
        reach: Reach | None = None,
        engine: MemoryEngine | None = None,
        embedder: Any = "default",
    ) -> None:
        """Open the store as `AsyncMemory` does, with the same arguments, and start the loop thread
        its calls run on."""
        super().__init__(
            AsyncMemory(path, namespace=namespace, reach=reach, engine=engine, embedder=embedder)
        )
        # an engine whose coroutines may run on any loop (every await a thread's future: `loop_free`)
        # takes writes on the caller's own thread, sparing two hand-offs through the loop thread
        self._runs_here = getattr(self._async.engine, "loop_free", False) is True

    def _closing(self) -> Coroutine[Any, Any, None]:
        return self._async.close()

    # -- what this facade is bound to --------------------------------------------------------------
    namespace: Forwarded[Namespace] = forwarded(AsyncMemory.namespace)
    reach: Forwarded[Reach] = forwarded(AsyncMemory.reach)
    engine: Forwarded[MemoryEngine] = forwarded(AsyncMemory.engine)
    descriptor: Forwarded[EngineDescriptor] = forwarded(AsyncMemory.descriptor)

    # -- writes ----------------------------------------------------------------------------------
    item = direct(AsyncMemory.item)
    store = blocking(AsyncMemory.store, here=True)
    store_many = blocking(AsyncMemory.store_many, here=True)
    forget = blocking(AsyncMemory.forget, here=True)
    purge = blocking(AsyncMemory.purge)

    # -- reads -----------------------------------------------------------------------------------
    fetch = blocking(AsyncMemory.fetch)
    recall = blocking(AsyncMemory.recall)
    list = blocking(AsyncMemory.list)
    get = blocking(AsyncMemory.get)
    explore = blocking(AsyncMemory.explore)
    expand = blocking(AsyncMemory.expand)

    # -- context for a model -----------------------------------------------------------------------
    context_md = blocking(AsyncMemory.context_md)
    recall_context = blocking(AsyncMemory.recall_context)

    # -- the brain: documents ----------------------------------------------------------------------
    ingest = blocking(AsyncMemory.ingest)
    ingest_text = blocking(AsyncMemory.ingest_text)

    # -- tools for a model -----------------------------------------------------------------------
    tools = wrapping(AsyncMemory.tools, Tools)
