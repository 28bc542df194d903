"""The PostgreSQL tests' fixtures: a session server and a fresh database per test (see server.py)."""

from __future__ import annotations

from .server import pg_dsn

__all__ = ["pg_dsn"]
