"""Which embedder a host gets by default, chosen by env TINYMEMORY_EMBEDDER.

`static-minilm` (the default: on LoCoMo it matches MiniLM's recall at about 1/100 of the cost, see
docs/architecture/embedders.md) and `minilm` both need the MiniLM weights package; without it the answer is
None, so the engine runs lexical-only rather than failing. `none` forces lexical-only; `openai` builds the
HTTP embedder from its env variables.
"""

from __future__ import annotations

import logging
import os

from tinymemory.api import InvalidRequest
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir
from tinymemory.retrieval.embedders.minilm import MiniLMEmbedder
from tinymemory.retrieval.embedders.openai_compat import OpenAICompatEmbedder
from tinymemory.retrieval.embedders.static import StaticMiniLMEmbedder

ENV_EMBEDDER = "TINYMEMORY_EMBEDDER"
EMBEDDER_CHOICES = ("static-minilm", "minilm", "none", "openai")
DEFAULT_CHOICE = "static-minilm"

_log = logging.getLogger(__name__)


def embedder_choice(value: str | None) -> str:
    """Read a TINYMEMORY_EMBEDDER value: case and surrounding blanks ignored, empty means the default."""
    choice = (value or "").strip().lower() or DEFAULT_CHOICE
    if choice not in EMBEDDER_CHOICES:
        raise InvalidRequest(
            f"default_embedder: `{ENV_EMBEDDER}` {value!r} is not one of {', '.join(EMBEDDER_CHOICES)}"
        )
    return choice


def default_embedder() -> Embedder | None:
    """The embedder the environment asks for; None means lexical-only search."""
    choice = embedder_choice(os.environ.get(ENV_EMBEDDER))
    if choice == "none":
        return None
    if choice == "openai":
        return OpenAICompatEmbedder()
    model_dir = find_minilm_dir()
    if model_dir is None:
        if os.environ.get(ENV_MINILM_DIR, "").strip():
            _log.warning("%s does not hold the minilm files; running lexical-only", ENV_MINILM_DIR)
        return None
    if choice == "minilm":
        return MiniLMEmbedder(model_dir)
    # Its table is built from MiniLM on first use when missing (or ahead of time: build_static_minilm).
    return StaticMiniLMEmbedder(model_dir=model_dir)
