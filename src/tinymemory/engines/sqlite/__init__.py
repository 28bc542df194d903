"""The embedded SQLite engine: the zero-setup default (one file, several processes may share it)."""

from tinymemory.engines.sqlite.engine import SqliteEngine

__all__ = ["SqliteEngine"]
