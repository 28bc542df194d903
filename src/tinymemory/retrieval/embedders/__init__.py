"""Embedders: text to L2-normalised float32 vectors behind one `Embedder` protocol.

`default_embedder()` is what engines use unless told otherwise: a static table distilled from the bundled
MiniLM (`static-minilm`); the full MiniLM run by numpy stays one env variable away (`minilm`).
"""

from tinymemory.retrieval.embedders.base import Embedder, Vectors
from tinymemory.retrieval.embedders.blas_threads import BLAS, SMALL_INPUT_TOKENS, BlasLimiter
from tinymemory.retrieval.embedders.default import ENV_EMBEDDER, default_embedder, embedder_choice
from tinymemory.retrieval.embedders.distil import build_static_minilm
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir, minilm_available
from tinymemory.retrieval.embedders.minilm import MINILM_DIM, MINILM_NAME, MiniLMEmbedder
from tinymemory.retrieval.embedders.openai_compat import OpenAICompatEmbedder
from tinymemory.retrieval.embedders.query_cache import QueryCache
from tinymemory.retrieval.embedders.sentence_transformers import SentenceTransformersEmbedder
from tinymemory.retrieval.embedders.static import (
    STATIC_DIM,
    StaticMiniLMEmbedder,
    static_minilm_name,
    static_minilm_path,
)

__all__ = [
    "BLAS",
    "ENV_EMBEDDER",
    "ENV_MINILM_DIR",
    "MINILM_DIM",
    "MINILM_NAME",
    "SMALL_INPUT_TOKENS",
    "STATIC_DIM",
    "BlasLimiter",
    "Embedder",
    "MiniLMEmbedder",
    "OpenAICompatEmbedder",
    "QueryCache",
    "SentenceTransformersEmbedder",
    "StaticMiniLMEmbedder",
    "Vectors",
    "build_static_minilm",
    "default_embedder",
    "embedder_choice",
    "find_minilm_dir",
    "minilm_available",
    "static_minilm_name",
    "static_minilm_path",
]
