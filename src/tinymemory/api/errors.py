"""The contract's errors: one base class, five kinds, lowercase messages that name the operation and field.

Hosts show these messages to models as tool output, so they must be specific and stable.
"""

from __future__ import annotations


class TinyMemoryError(Exception):
    """Base class of every error tinymemory raises on purpose."""

    kind: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidRequest(TinyMemoryError):
    """The request is malformed: a missing, mistyped, unknown or out-of-range value. Nothing was written."""

    kind = "invalid_request"


class Unsupported(TinyMemoryError):
    """The request is well formed but this engine or scope does not offer the operation."""

    kind = "unsupported"


class NotFound(TinyMemoryError):
    """The named thing does not exist (or is outside what the caller may see)."""

    kind = "not_found"


class Conflict(TinyMemoryError):
    """The request clashes with the stored state (for example a schema version mismatch)."""

    kind = "conflict"


class Unavailable(TinyMemoryError):
    """A dependency (database, embedder, LLM) could not serve the request; retrying may help."""

    kind = "unavailable"
