"""The systems `bench/peers.py` compares, behind one small synchronous interface.

Every system gets the same MiniLM instance (tinymemory's numpy forward pass, query cache off), so the
comparison measures storage and search, not different models. mem0 and chromadb are imported lazily:
they live in the bench-only `peers` extra, never in tinymemory's runtime dependencies.

mem0 takes the embedder through its own factory: its config only accepts known provider names, so the
bench points the `huggingface` entry of `EmbedderFactory` at `MiniLMForMem0` (below) before building a
`Memory`; nothing of sentence-transformers or torch is imported, and nothing downloads.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MetaFilter, Namespace, NewItem, Reach
from tinymemory.retrieval.embedders import Embedder, Vectors


class TimedEmbedder:
    """Wraps the shared embedder and adds up the wall time spent inside it, so the bench can tell a
    system's own cost from the model's (every system calls the model synchronously on its add path)."""

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


# The embedder every system uses; set by `share_embedder` before any system is built.
_SHARED: TimedEmbedder | None = None


def share_embedder(embedder: TimedEmbedder) -> None:
    global _SHARED
    _SHARED = embedder


def shared_embedder() -> TimedEmbedder:
    if _SHARED is None:
        raise RuntimeError("peers: call share_embedder() before building a system")
    return _SHARED


class System(Protocol):
    """One store under test. `add` returns ids in input order; `search` returns ids best first."""

    label: str
    mode: str
    batching: str

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]: ...

    def search(self, scope: str, query: str, k: int) -> list[str]: ...

    def close(self) -> None: ...


def scope_namespace(scope: str) -> Namespace:
    return Namespace.parse(f"bench:peers/scope:{scope}")


def plain_items(scope: str, texts: Sequence[str]) -> list[NewItem]:
    ns = scope_namespace(scope)
    return [NewItem(kind=ItemKind.LEARNING, text=t, meta=ItemMeta(namespace=ns)) for t in texts]


class TinyMemory:
    """tinymemory's SQLite engine, driven through the async `MemoryEngine` on a private event loop."""

    batching = "`store_many`, one call per conversation / 2,000 items"

    def __init__(self, path: Path, mode: FetchMode, *, own_embedder: bool = False) -> None:
        """`own_embedder`: tinymemory's default embedder (static-minilm) instead of the shared MiniLM,
        to show what a user gets out of the box; its model time is then not split out."""
        from tinymemory.engines.sqlite import SqliteEngine

        self.mode = mode.value
        self.label = "tinymemory, default static-minilm" if own_embedder else "tinymemory"
        self._fetch_mode = mode
        self._loop = asyncio.new_event_loop()
        embedder: Any = None if mode is FetchMode.LEXICAL else shared_embedder()
        if own_embedder:
            embedder = "default"
        self._engine = SqliteEngine(str(path), embedder=embedder)
        self._loop.run_until_complete(self._engine.__aenter__())
        self._reach: dict[str, MetaFilter] = {}

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]:
        if items:  # a scope is the namespace its items were stored in (LoCoMo brings its own)
            self._reach[scope] = MetaFilter(reach=Reach.exact(items[0].meta.namespace))
        ids: list[str] = []
        for at in range(0, len(items), 2000):
            results = self._loop.run_until_complete(self._engine.store_many(list(items[at : at + 2000])))
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
    """A plain persistent chromadb collection (default HNSW settings); scopes are a metadata filter."""

    label = "chromadb"
    mode = "dense (HNSW)"
    batching = "`collection.add` with lists, chunks of the client's max batch size"

    def __init__(self, path: Path) -> None:
        import chromadb
        from chromadb.config import Settings

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
                metadatas=[{"scope": scope} for _ in chunk],
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
    per message, embedding each on its own (`embed`, not `embed_batch`). The bench sends one call per
    conversation / 500 items, the cheapest way mem0 offers.
    """

    label = "mem0"
    mode = "dense (local Qdrant)"
    batching = "`add(messages=[...], infer=False)`, one embed per message (no batch path)"

    def __init__(self, path: Path) -> None:
        global MiniLMForMem0
        from mem0 import Memory  # type: ignore[import-untyped]
        from mem0.utils.factory import EmbedderFactory  # type: ignore[import-untyped]

        if MiniLMForMem0 is None:
            MiniLMForMem0 = _mem0_embedding_class()
        EmbedderFactory.provider_to_class["huggingface"] = f"{__name__}.MiniLMForMem0"
        dim = shared_embedder().dim
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
        for at in range(0, len(items), 500):
            messages = [{"role": "user", "content": i.text} for i in items[at : at + 500]]
            res = self._memory.add(messages, user_id=scope, infer=False)
            ids += [r["id"] for r in res["results"]]
        if len(ids) != len(items):
            raise RuntimeError(f"mem0 add: stored {len(ids)} of {len(items)} messages")
        return ids

    def search(self, scope: str, query: str, k: int) -> list[str]:
        res = self._memory.search(query, top_k=k, filters={"user_id": scope}, threshold=0.0)
        return [r["id"] for r in res["results"]]

    def close(self) -> None:
        self._memory.close()
