"""Storage engines implementing tinymemory.api.MemoryEngine, and `open_engine`, which picks one from a
target: a `postgresql://` URL or a SQLite file path (see targets.py)."""

from tinymemory.engines.embedded import embedded_text, engine_embedder
from tinymemory.engines.targets import is_postgres_url, open_engine, redact, sqlite_file

__all__ = [
    "embedded_text",
    "engine_embedder",
    "is_postgres_url",
    "open_engine",
    "redact",
    "sqlite_file",
]
