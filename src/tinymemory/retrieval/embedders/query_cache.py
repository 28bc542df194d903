"""A small thread-safe LRU of query vectors: agents re-ask the same query within a turn and across tools."""

from __future__ import annotations

import threading
from collections import OrderedDict

from tinymemory.retrieval.embedders.base import Vectors


class QueryCache:
    """A small thread-safe LRU of query vectors, keyed by the query text: agents re-ask the same query
    within a turn and across tools, and each embedding saved is a forward pass or a request."""

    def __init__(self, capacity: int = 256) -> None:
        if capacity < 0:
            raise ValueError("query cache: `capacity` must be >= 0")
        self._capacity = capacity
        self._items: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> Vectors | None:
        """The cached vector of `text` (marked most recent), or None; counts hits and misses."""
        with self._lock:
            vec = self._items.get(text)
            if vec is None:
                self.misses += 1
                return None
            self._items.move_to_end(text)
            self.hits += 1
            return vec

    def put(self, text: str, vec: Vectors) -> Vectors:
        """Store a read-only copy (callers share it, so nobody may mutate it) and return that copy."""
        frozen = vec.copy()
        frozen.setflags(write=False)
        if self._capacity == 0:
            return frozen
        with self._lock:
            self._items[text] = frozen
            self._items.move_to_end(text)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)
        return frozen

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
