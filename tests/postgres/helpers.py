"""Small helpers shared by the Postgres tests (no tests here)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem

HASH_DIM = 32


class HashEmbedder:
    """Hashes words into buckets, so texts sharing words are close: a fast stand-in for MiniLM where a
    test is about the engine, not about embedding quality."""

    def __init__(self, name: str = "hash-32") -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return HASH_DIM

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        v = np.zeros(HASH_DIM, dtype=np.float32)
        for word in text.lower().replace(".", " ").replace(",", " ").split():
            v[int(hashlib.sha1(word.encode()).hexdigest(), 16) % HASH_DIM] += 1.0
        n = float(np.linalg.norm(v))
        return v / n if n else v

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, HASH_DIM), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)


def note(
    text: str, ns: str = "", kind: ItemKind = ItemKind.LEARNING, confidence: float | None = None, **meta: Any
) -> NewItem:
    """A NewItem in namespace `ns` (text form) with the given meta fields."""
    return NewItem(kind, text, ItemMeta(namespace=Namespace.parse(ns), **meta), confidence=confidence)
