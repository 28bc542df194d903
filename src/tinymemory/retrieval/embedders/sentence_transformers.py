"""Optional embedder over sentence-transformers (the `torch` extra), for models beyond MiniLM or a GPU.

The library is imported on first use, so this module imports cleanly without torch installed.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.locate import find_minilm_dir
from tinymemory.retrieval.embedders.minilm import MINILM_NAME


class SentenceTransformersEmbedder:
    """Wraps `SentenceTransformer(model)`; the default model is the installed MiniLM weights folder."""

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        device: str | None = None,
        batch_size: int = 32,
        name: str | None = None,
    ) -> None:
        if model is None:
            model = find_minilm_dir()
            if model is None:
                raise Unavailable("embed: no `model` given and the minilm weights are not installed")
            name = name or MINILM_NAME
        self._model_ref = str(model)
        self._name = name or Path(self._model_ref).name or self._model_ref
        self._device = device
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def name(self) -> str:
        """The model's last path or hub segment; for the default MiniLM the same name as MiniLMEmbedder's,
        since the vectors agree."""
        return self._name

    @property
    def dim(self) -> int:
        """The model's sentence vector size (loads the model)."""
        return int(self._load().get_sentence_embedding_dimension())

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    st = importlib.import_module("sentence_transformers")
                except ImportError as exc:
                    raise Unavailable(
                        "embed: sentence-transformers is not installed (pip install 'tinymemory[torch]')"
                    ) from exc
                self._model = st.SentenceTransformer(self._model_ref, device=self._device)
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents with the model (normalised by it): shape (len(texts), dim)."""
        if isinstance(texts, str):
            raise TypeError("embed: `texts` must be a sequence of strings, not a single string")
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = model.encode(
            list(texts), batch_size=self._batch_size, convert_to_numpy=True, normalize_embeddings=True
        )
        return np.ascontiguousarray(out, dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query the same way as a document: shape (dim,)."""
        row: Vectors = self.embed([text])[0]
        return row
