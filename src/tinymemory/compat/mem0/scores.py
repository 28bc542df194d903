"""mem0's search score: how similar a memory is to the query, on mem0's scale.

mem0 scores a hit by its vector store's similarity of the query's and the memory's embeddings (cosine
for its default stores), and `threshold` cuts on that number. tinymemory's own score is a reranked
hybrid relevance on another scale, so a mem0 threshold applied to it would drop good hits. Here the
order stays tinymemory's ranking, and each hit's score is the cosine of the query's embedding and the
embedding of the text the engine embedded for that memory (its title over its text), with the engine's
own embedder. An engine with no embedder, or one that is not tinymemory's, keeps tinymemory's score.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from tinymemory.api import Hit
from tinymemory.engines import embedded_text
from tinymemory.retrieval.embedders.base import Embedder


def _cosines(embedder: Embedder, query: str, texts: Sequence[str]) -> list[float]:
    q = np.asarray(embedder.embed_query(query), dtype=np.float64)
    docs = np.asarray(embedder.embed(list(texts)), dtype=np.float64)
    norms = np.linalg.norm(docs, axis=1) * (np.linalg.norm(q) or 1.0)
    sims = (docs @ q) / np.where(norms > 0, norms, 1.0)
    return [float(np.clip(s, -1.0, 1.0)) for s in sims]


async def similarities(embedder: Embedder | None, query: str, hits: Sequence[Hit]) -> list[float]:
    """Each hit's score on mem0's scale: the cosine with `embedder` (off the event loop: an embedder
    may block), else tinymemory's own score."""
    if embedder is None or not hits:
        return [hit.score for hit in hits]
    texts = [embedded_text(hit.item) for hit in hits]
    return await asyncio.to_thread(_cosines, embedder, query, texts)
