"""The embeddings a LangGraph user brings, as a tinymemory `Embedder`.

LangGraph's index config names its embeddings as `index["embed"]`: a LangChain `Embeddings`, a function
from a list of texts to a list of vectors (sync or async), or a `"provider:model"` string that
`langchain.embeddings.init_embeddings` resolves (with `langchain` installed). LangGraph's own
`ensure_embeddings` turns each form into an `Embeddings`; `LangChainEmbedder` puts that behind the
`Embedder` protocol (`tinymemory.retrieval.embedders.base`), so the engine embeds with it as with any of
its own embedders: float32 rows of length `index["dims"]`, L2-normalised (cosine is unchanged by it).

Its `name`, stored beside every vector, says which embeddings made it (the string, or the class and its
`model` when it has one, and the dims), so a store reopened with other embeddings sees the old vectors
as stale and embeds again, as `tinymemory embedder reembed` does.

A vector of another length than `dims` is refused (InvalidRequest naming `index.dims`) before anything
is written. Documents and queries are kept in small caches: the store and the engine embed the same
texts in one put (the store empties the documents' cache once the put is stored), and the same query
in one search.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import numpy as np
from langgraph.store.base.embed import ensure_embeddings

from tinymemory.api import InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.retrieval.embedders.base import Vectors

__all__ = ["LangChainEmbedder", "as_embedder"]

MAX_DIMS = 65_536
CACHE_TEXTS = 1024


def _identity(embed: object) -> str:
    """What names these embeddings: the string itself, else the class (or function) and its model."""
    if isinstance(embed, str):
        return embed
    kind = type(embed) if not callable(embed) or hasattr(embed, "embed_documents") else embed
    name = f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', type(embed).__name__)}"
    for attr in ("model", "model_name", "deployment"):
        model = getattr(embed, attr, None)
        if isinstance(model, str) and model:
            return f"{name}:{model}"
    return name


class LangChainEmbedder:
    """A LangChain `Embeddings` (or what `ensure_embeddings` makes of a function or a string) behind
    tinymemory's `Embedder` protocol: float32, L2-normalised, `dims` long, checked.

    Args:
        embeddings: The LangChain embeddings to call.
        dims: The length every vector must have (`index["dims"]`).
        name: The name stored beside its vectors.
        afunc: An async embedding function, run on the calling (worker) thread's own event loop when the
            embeddings have no sync form.
    """

    def __init__(
        self,
        embeddings: Any,
        dims: int,
        name: str,
        afunc: Callable[[Sequence[str]], Awaitable[list[list[float]]]] | None = None,
    ) -> None:
        self.embeddings = embeddings
        self._dims = dims
        self._name = name
        self._afunc = afunc
        self._lock = threading.Lock()
        self._docs: OrderedDict[str, Vectors] = OrderedDict()
        self._queries: OrderedDict[str, Vectors] = OrderedDict()

    @property
    def name(self) -> str:
        """`langchain:<what made the vectors>:<dims>`."""
        return self._name

    @property
    def dim(self) -> int:
        """`index["dims"]`."""
        return self._dims

    def _rows(self, op: str, raw: object, count: int) -> Vectors:
        try:
            rows = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError):
            raise InvalidRequest(
                f"{op}: `index.embed` returned something that is not a list of vectors"
            ) from None
        if rows.ndim != 2 or rows.shape[0] != count:
            raise InvalidRequest(
                f"{op}: `index.embed` returned an array of shape {echo(rows.shape)} for {count} texts,"
                " not one vector each"
            )
        if rows.shape[1] != self._dims:
            raise InvalidRequest(
                f"{op}: `index.embed` returned vectors of {rows.shape[1]} numbers;"
                f" `index.dims` is {self._dims}"
            )
        if not np.isfinite(rows).all():
            raise InvalidRequest(f"{op}: `index.embed` returned a vector with NaN or infinite numbers")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return cast(Vectors, np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0))

    def _documents(self, texts: list[str]) -> object:
        if self._afunc is not None:
            return asyncio.run(cast(Any, self._afunc(texts)))
        return self.embeddings.embed_documents(texts)

    def _query(self, text: str) -> object:
        if self._afunc is not None:
            return asyncio.run(cast(Any, self._afunc([text])))[0]
        return self.embeddings.embed_query(text)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The documents' vectors, shape (len(texts), dims); texts seen lately are not embedded again."""
        return self.documents("embed", texts)

    def embed_query(self, text: str) -> Vectors:
        """The query's vector, shape (dims,)."""
        return self.query("embed", text)

    def documents(self, op: str, texts: Sequence[str]) -> Vectors:
        """`embed`, its errors naming `op`."""
        texts = list(texts)
        with self._lock:
            known = {t: self._docs[t] for t in texts if t in self._docs}
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if todo:
            fresh = self._rows(op, self._documents(todo), len(todo))
            with self._lock:
                for text, row in zip(todo, fresh, strict=True):
                    known[text] = self._docs[text] = row
                    self._docs.move_to_end(text)
                while len(self._docs) > CACHE_TEXTS:
                    self._docs.popitem(last=False)
        if not texts:
            return np.zeros((0, self._dims), dtype=np.float32)
        return np.stack([known[t] for t in texts])

    def drop_documents(self) -> None:
        """Empty the documents' cache (the store does after each write, so no text it held, deleted
        since or not, stays in memory beyond the write that embedded it)."""
        with self._lock:
            self._docs.clear()

    def query(self, op: str, text: str) -> Vectors:
        """`embed_query`, its errors naming `op`."""
        with self._lock:
            found = self._queries.get(text)
        if found is not None:
            return found
        row: Vectors = self._rows(op, [self._query(text)], 1)[0]
        row.setflags(write=False)
        with self._lock:
            self._queries[text] = row
            while len(self._queries) > CACHE_TEXTS:
                self._queries.popitem(last=False)
        return row


def as_embedder(op: str, embed: object, dims: object) -> LangChainEmbedder:
    """`index["embed"]` and `index["dims"]` as an Embedder. Raises InvalidRequest naming the field for
    a missing or bad `dims`, or embeddings LangGraph cannot make sense of (an unknown provider string, or
    one given without `langchain` installed)."""
    if isinstance(dims, bool) or not isinstance(dims, int) or not 0 < dims <= MAX_DIMS:
        raise InvalidRequest(
            f"{op}: `index.dims` must be the length of the embeddings' vectors (1 to {MAX_DIMS}),"
            f" got {echo(dims)}"
        )
    if not isinstance(embed, str) and not callable(embed) and not hasattr(embed, "embed_documents"):
        raise InvalidRequest(
            f"{op}: `index.embed` must be LangChain Embeddings, a function from texts to vectors or a"
            f' "provider:model" string, got {type(embed).__name__}'
        )
    afunc = None
    if inspect.iscoroutinefunction(embed) or (
        callable(embed) and inspect.iscoroutinefunction(type(embed).__call__)
    ):
        afunc = cast(Callable[[Sequence[str]], Awaitable[list[list[float]]]], embed)
    try:
        embeddings = ensure_embeddings(cast(Any, embed))
    except Exception as exc:  # an unknown provider, no langchain for a string, not embeddings at all
        raise InvalidRequest(f"{op}: `index.embed` cannot be used: {echo(str(exc), 300)}") from None
    return LangChainEmbedder(embeddings, dims, f"langchain:{_identity(embed)}:{dims}", afunc)
