"""The systems `bench/peers.py` compares, behind one small synchronous interface.

Each system is handed one embedder, wrapped in a `TimedEmbedder` so the bench can subtract the model's
time and show the system's own cost. The peers always get the shared all-MiniLM-L6-v2 (tinymemory's numpy
forward pass, query cache off); tinymemory runs once on that same instance and once on its own default
embedder, so a ratio splits into the part the store earns and the part the embedder earns.

What each system is given: `add` receives tinymemory `NewItem`s; each adapter passes on what its API
can take (see `turn_metadata`): tinymemory the speaker, session and session date as item metadata;
chromadb the same as per-item metadata; mem0 the session as `run_id`, the speaker as the message `name`
and session and date as `metadata`. Only tinymemory ranks with them; the others store them.

mem0 and chromadb are imported lazily: they live in the bench-only `peers` extra, never in tinymemory's
runtime dependencies. mem0 takes the embedder through its own factory: its config only accepts known
provider names, so the bench points the `huggingface` entry of `EmbedderFactory` at `MiniLMForMem0`
(below) before building a `Memory`; nothing of sentence-transformers or torch is imported.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MetaFilter, Namespace, NewItem, Reach
from tinymemory.retrieval.embedders import Embedder, Vectors


class TimedEmbedder:
    """Wraps an embedder and adds up the wall time spent inside it, so the bench can tell a system's own
    cost from the model's (every system calls the model synchronously on its add and search paths)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.seconds = 0.0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        t = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t

    def embed_query(self, text: str) -> Vectors:
        t = time.perf_counter()
        try:
            return self._inner.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - t


# The embedder the peers (and tinymemory's same-embedder rows) use; set by `share_embedder` first.
_SHARED: TimedEmbedder | None = None


def share_embedder(embedder: TimedEmbedder) -> None:
    global _SHARED
    _SHARED = embedder


def shared_embedder() -> TimedEmbedder:
    if _SHARED is None:
        raise RuntimeError("peers: call share_embedder() before building a system")
    return _SHARED


class System(Protocol):
    """One store under test. `add` returns ids in input order; `search` returns ids best first.
    `timer` is the embedder it calls (None: it embeds nothing)."""

    label: str
    mode: str
    embedder: str
    batching: str
    timer: TimedEmbedder | None

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]: ...

    def search(self, scope: str, query: str, k: int) -> list[str]: ...

    def close(self) -> None: ...


def scope_namespace(scope: str) -> Namespace:
    return Namespace.parse(f"bench:peers/scope:{scope}")


def plain_items(scope: str, texts: Sequence[str]) -> list[NewItem]:
    ns = scope_namespace(scope)
    return [NewItem(kind=ItemKind.LEARNING, text=t, meta=ItemMeta(namespace=ns)) for t in texts]


def text_only(item: NewItem) -> NewItem:
    """The item with its speaker, session and date dropped: what a peer that ignores metadata sees. The
    identity stays so that two equal lines of one conversation remain two memories, as in the peers."""
    return replace(item, meta=ItemMeta(namespace=item.meta.namespace))


def turn_metadata(scope: str, item: NewItem) -> dict[str, str | int]:
    """The metadata a peer is handed for one item: scope, and speaker, session and date when known."""
    meta: dict[str, str | int] = {"scope": scope}
    if item.meta.source is not None and item.meta.source.id:
        meta["speaker"] = item.meta.source.id
    if item.meta.thread_id:
        meta["session"] = item.meta.thread_id
    if item.meta.observed_at is not None:
        meta["date"] = item.meta.observed_at.isoformat()
        meta["date_ts"] = int(item.meta.observed_at.timestamp())
    return meta


class TinyMemory:
    """tinymemory's SQLite engine, driven through the async `MemoryEngine` on a private event loop.

    `embedder`: "shared" (the peers' MiniLM), "default" (what `SqliteEngine` picks out of the box, the
    256-d static-minilm) or None (lexical only). `metadata=False` stores the text alone."""

    batching = "`store_many`, one call per LoCoMo session / 500 synthetic items"

    def __init__(
        self, label: str, path: Path, mode: FetchMode, embedder: str | None, *, metadata: bool = True
    ) -> None:
        from tinymemory.engines.embedder_choice import resolve_embedder
        from tinymemory.engines.sqlite import SqliteEngine

        self.mode = mode.value
        self.label = label
        self._metadata = metadata
        self.timer: TimedEmbedder | None = None
        if embedder == "shared":
            self.timer = shared_embedder()
        elif embedder == "default":
            found = resolve_embedder("default", "sqlite")
            if found is None:
                raise RuntimeError("peers: tinymemory's default embedder is unavailable here")
            self.timer = TimedEmbedder(found)
        self.embedder = "none" if self.timer is None else self.timer.name
        self._fetch_mode = mode
        self._loop = asyncio.new_event_loop()
        self._engine = SqliteEngine(str(path), embedder=self.timer)
        self._loop.run_until_complete(self._engine.__aenter__())
        self._reach: dict[str, MetaFilter] = {}

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]:
        if items:  # a scope is the namespace its items were stored in (LoCoMo brings its own)
            self._reach[scope] = MetaFilter(reach=Reach.exact(items[0].meta.namespace))
        todo = list(items) if self._metadata else [text_only(i) for i in items]
        ids: list[str] = []
        for at in range(0, len(todo), 1000):
            results = self._loop.run_until_complete(self._engine.store_many(todo[at : at + 1000]))
            ids += [r.id for r in results]
        return ids

    def search(self, scope: str, query: str, k: int) -> list[str]:
        flt = self._reach.get(scope) or MetaFilter(reach=Reach.exact(scope_namespace(scope)))
        req = FetchRequest(query=query, mode=self._fetch_mode, filter=flt, limit=k)
        res = self._loop.run_until_complete(self._engine.fetch(req))
        return [h.item.id for h in res.hits]

    def close(self) -> None:
        self._loop.run_until_complete(self._engine.__aexit__(None, None, None))
        self._loop.close()


def _chroma_function() -> Any:
    """A chromadb embedding function over the shared MiniLM (defined lazily: chromadb is optional)."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class MiniLMForChroma(EmbeddingFunction[Documents]):
        def __init__(self) -> None:
            self._embedder = shared_embedder()

        def __call__(self, input: Documents) -> Embeddings:
            return list(self._embedder.embed(list(input)))

        def embed_query(self, input: Documents) -> Embeddings:
            return [self._embedder.embed_query(text) for text in input]

        @staticmethod
        def name() -> str:
            return "tinymemory-minilm-bench"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> MiniLMForChroma:
            return MiniLMForChroma()

    return MiniLMForChroma()


class Chroma:
    """A plain persistent chromadb collection (default HNSW settings). Each item carries its scope,
    speaker, session and date as metadata; the scope is a `where` filter, the rest is stored only
    (chromadb ranks by vector distance alone)."""

    label = "chromadb"
    mode = "dense (HNSW)"
    batching = "`collection.add` with lists, chunks of the client's max batch size"

    def __init__(self, path: Path) -> None:
        import chromadb
        from chromadb.config import Settings

        self.timer: TimedEmbedder | None = shared_embedder()
        self.embedder = self.timer.name
        self._client = chromadb.PersistentClient(
            path=str(path), settings=Settings(anonymized_telemetry=False)
        )
        self._col = self._client.create_collection("bench", embedding_function=_chroma_function())
        self._max_batch = int(self._client.get_max_batch_size())

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]:
        ids = [uuid.uuid4().hex for _ in items]
        for at in range(0, len(items), self._max_batch):
            chunk = items[at : at + self._max_batch]
            self._col.add(
                ids=ids[at : at + len(chunk)],
                documents=[i.text for i in chunk],
                metadatas=[turn_metadata(scope, i) for i in chunk],  # type: ignore[misc]
            )
        return ids

    def search(self, scope: str, query: str, k: int) -> list[str]:
        res = self._col.query(query_texts=[query], n_results=k, where={"scope": scope}, include=[])
        return list(res["ids"][0])

    def close(self) -> None:
        self._client.clear_system_cache()


def _mem0_embedding_class() -> type[Any]:
    from mem0.embeddings.base import EmbeddingBase  # type: ignore[import-untyped]

    class MiniLMForMem0(EmbeddingBase):  # type: ignore[misc]
        def __init__(self, config: Any = None) -> None:
            super().__init__(config)
            self._embedder = shared_embedder()

        def embed(self, text: str, memory_action: str | None = None) -> list[float]:
            if memory_action == "search":
                return [float(x) for x in self._embedder.embed_query(text)]
            return [float(x) for x in self._embedder.embed([text])[0]]

        def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
            return [[float(x) for x in row] for row in self._embedder.embed(texts)]

    return MiniLMForMem0


# mem0's factory loads classes by dotted path; this module-level name is what it imports.
MiniLMForMem0: type[Any] | None = None


class Mem0:
    """mem0 OSS `Memory` with infer=False (no LLM call), its default local Qdrant, user_id = scope.

    mem0 has no batch add for raw memories: one `add` call takes a list of messages and stores one memory
    per message, embedding each on its own (`embed`, not `embed_batch`). `metadata` and `run_id` apply to
    a whole call, so the bench sends one call per session (at most 500 messages): run_id = the session,
    metadata = session and date, each message named by its speaker (mem0 keeps it as `actor_id`). mem0's
    `timestamp` on add and `reference_date` on search are Platform-only (the OSS `Memory` raises), and
    its OSS ranking reads none of these fields: they are stored and returned, not ranked with.
    """

    label = "mem0"
    mode = "dense (local Qdrant)"
    batching = "`add(messages=[...], infer=False)`, one call per session, one embed per message"

    def __init__(self, path: Path) -> None:
        global MiniLMForMem0
        from mem0 import Memory  # type: ignore[import-untyped]
        from mem0.utils.factory import EmbedderFactory  # type: ignore[import-untyped]

        if MiniLMForMem0 is None:
            MiniLMForMem0 = _mem0_embedding_class()
        EmbedderFactory.provider_to_class["huggingface"] = f"{__name__}.MiniLMForMem0"
        self.timer: TimedEmbedder | None = shared_embedder()
        self.embedder = self.timer.name
        dim = self.timer.dim
        self._memory = Memory.from_config(
            {
                "embedder": {"provider": "huggingface", "config": {"embedding_dims": dim}},
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "bench",
                        "path": str(path / "qdrant"),
                        "embedding_model_dims": dim,
                    },
                },
                "history_db_path": str(path / "history.db"),
            }
        )

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]:
        ids: list[str] = []
        for session, group in itertools.groupby(items, key=lambda i: i.meta.thread_id):
            turns = list(group)
            for at in range(0, len(turns), 500):
                chunk = turns[at : at + 500]
                meta = turn_metadata(scope, chunk[0])
                for key in ("scope", "speaker"):  # the scope is user_id; the speaker goes per message
                    meta.pop(key, None)
                messages = [self._message(i) for i in chunk]
                res = self._memory.add(messages, user_id=scope, run_id=session, metadata=meta, infer=False)
                ids += [r["id"] for r in res["results"]]
        if len(ids) != len(items):
            raise RuntimeError(f"mem0 add: stored {len(ids)} of {len(items)} messages")
        return ids

    @staticmethod
    def _message(item: NewItem) -> dict[str, str]:
        message = {"role": "user", "content": item.text}
        if item.meta.source is not None and item.meta.source.id:
            message["name"] = item.meta.source.id
        return message

    def search(self, scope: str, query: str, k: int) -> list[str]:
        res = self._memory.search(query, top_k=k, filters={"user_id": scope}, threshold=0.0)
        return [r["id"] for r in res["results"]]

    def close(self) -> None:
        self._memory.close()
