"""The Embedder protocol: text in, L2-normalised float32 vectors out.

Engines call it in batches at write time (never on read, except for the query itself), from a worker
thread, so implementations may block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """What an engine needs from an embedder: a stable name, a dimension, and L2-normalised float32 vectors
    for documents and for a query. Engines call it in batches from a worker thread, so an implementation
    may block."""

    @property
    def name(self) -> str:
        """Stable identifier stored beside vectors (a changed name means re-embedding)."""
        ...

    @property
    def dim(self) -> int:
        """The length of every vector this embedder returns."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents: shape (len(texts), dim), rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one query: shape (dim,), L2-normalised. Asymmetric models may differ from `embed`."""
        ...
