"""What a tinymemory engine embeds, for callers above the engines that compare against it (the mem0
compat layer's scores): the engine's embedder, and the text it embeds for a memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory.api import MemoryEngine, MemoryItem
from tinymemory.engines.versions import embedding_text

if TYPE_CHECKING:
    from tinymemory.retrieval.embedders.base import Embedder


def engine_embedder(engine: MemoryEngine) -> Embedder | None:
    """The embedder a tinymemory engine stores vectors with; None when it has none or is another's."""
    from tinymemory.engines.core import StorageEngine  # here: `import tinymemory.engines` stays light

    return engine.embedder if isinstance(engine, StorageEngine) else None


def embedded_text(item: MemoryItem) -> str:
    """The text whose embedding the engine keeps for `item` (its title over its text)."""
    return embedding_text(item.meta.title, item.text)
