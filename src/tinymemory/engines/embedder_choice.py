"""Which embedder an engine uses: the one given, none, or the default resolved by name.

Shared by every engine, so "default" means the same thing whatever the storage: the embedders package's
default when it can run here, else lexical-only search with one warning per process saying why.
"""

from __future__ import annotations

import importlib
import logging

from tinymemory.api.errors import TinyMemoryError
from tinymemory.retrieval.embedders.base import Embedder

_log = logging.getLogger(__name__)
_warned_lexical = False


def _warn_lexical_only(reason: str) -> None:
    """Once per process: a host that expected semantic search must hear that it is not getting it."""
    global _warned_lexical
    if not _warned_lexical:
        _warned_lexical = True
        _log.warning("tinymemory: %s", reason)


def resolve_embedder(embedder: Embedder | str | None, engine: str) -> Embedder | None:
    """`None`: lexical only; an Embedder: that one; "default": the default embedder, or None (logged
    once) when it cannot run here. Any other string is a programming error naming `engine`."""
    if embedder is None:
        return None
    if embedder == "default":
        # Imported lazily and by name: without the embedders package or its weights, lexical only.
        # A misconfiguration the embedders report on purpose (TinyMemoryError) is raised, not hidden;
        # a fallback to lexical-only that nobody asked for is logged once, with the fix.
        try:
            module = importlib.import_module("tinymemory.retrieval.embedders")
        except ImportError as exc:
            _warn_lexical_only(f"the embedders cannot be imported ({exc}); search is lexical only")
            return None
        try:
            found = module.default_embedder()
        except TinyMemoryError:
            raise
        except Exception as exc:
            _warn_lexical_only(f"the default embedder is unavailable ({exc}); search is lexical only")
            return None
        if found is None:
            reason = module.lexical_only_reason()
            if reason:
                _warn_lexical_only(reason)
            return None
        return found if isinstance(found, Embedder) else None
    if isinstance(embedder, str):
        raise TypeError(f"{engine}: `embedder` must be an Embedder, None or 'default', got {embedder!r}")
    return embedder
