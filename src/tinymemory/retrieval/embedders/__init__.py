"""Embedders: text to L2-normalised float32 vectors behind one `Embedder` protocol.

`default_embedder()` is what engines use unless told otherwise: a static table distilled from MiniLM that
ships inside the package (`static-minilm`); the full MiniLM run by numpy stays one env variable away
(`minilm`, with the weights package installed).
"""

from typing import TYPE_CHECKING, Any

from tinymemory.retrieval.embedders.base import Embedder, Vectors
from tinymemory.retrieval.embedders.blas_threads import BLAS, SMALL_INPUT_TOKENS, BlasLimiter
from tinymemory.retrieval.embedders.default import (
    ENV_EMBEDDER,
    default_embedder,
    embedder_choice,
    lexical_only_reason,
)
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir, minilm_available
from tinymemory.retrieval.embedders.query_cache import QueryCache
from tinymemory.retrieval.embedders.static import StaticMiniLMEmbedder
from tinymemory.retrieval.embedders.tables import (
    STATIC_DIM,
    shipped_table,
    static_minilm_name,
    static_minilm_path,
)

if TYPE_CHECKING:
    from tinymemory.retrieval.embedders.distil import build_static_minilm
    from tinymemory.retrieval.embedders.minilm import MINILM_DIM, MINILM_NAME, MiniLMEmbedder
    from tinymemory.retrieval.embedders.openai_compat import OpenAICompatEmbedder
    from tinymemory.retrieval.embedders.sentence_transformers import SentenceTransformersEmbedder

# Imported on first use (PEP 562): the HTTP client, the optional torch wrapper, the distiller and the
# MiniLM forward pass cost tens of milliseconds to import, which every process that only wants the
# default embedder would pay.
_LAZY = {
    "MINILM_DIM": "tinymemory.retrieval.embedders.minilm",
    "MINILM_NAME": "tinymemory.retrieval.embedders.minilm",
    "MiniLMEmbedder": "tinymemory.retrieval.embedders.minilm",
    "OpenAICompatEmbedder": "tinymemory.retrieval.embedders.openai_compat",
    "SentenceTransformersEmbedder": "tinymemory.retrieval.embedders.sentence_transformers",
    "build_static_minilm": "tinymemory.retrieval.embedders.distil",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
    "lexical_only_reason",
    "minilm_available",
    "shipped_table",
    "static_minilm_name",
    "static_minilm_path",
]
