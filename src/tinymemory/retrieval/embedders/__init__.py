"""Embedders: text to L2-normalised float32 vectors behind one `Embedder` protocol.

`default_embedder()` is what engines use unless told otherwise: the bundled MiniLM run by numpy.
"""

from tinymemory.retrieval.embedders.base import Embedder, Vectors
from tinymemory.retrieval.embedders.default import ENV_EMBEDDER, default_embedder, embedder_choice
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir, minilm_available
from tinymemory.retrieval.embedders.minilm import MINILM_DIM, MINILM_NAME, MiniLMEmbedder
from tinymemory.retrieval.embedders.openai_compat import OpenAICompatEmbedder
from tinymemory.retrieval.embedders.query_cache import QueryCache
from tinymemory.retrieval.embedders.sentence_transformers import SentenceTransformersEmbedder

__all__ = [
    "ENV_EMBEDDER",
    "ENV_MINILM_DIR",
    "MINILM_DIM",
    "MINILM_NAME",
    "Embedder",
    "MiniLMEmbedder",
    "OpenAICompatEmbedder",
    "QueryCache",
    "SentenceTransformersEmbedder",
    "Vectors",
    "default_embedder",
    "embedder_choice",
    "find_minilm_dir",
    "minilm_available",
]
