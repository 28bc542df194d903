"""A Postgres with pgvector for the benches: a throwaway pgserver, or the server an administrator URL names.

Every database it hands out is fresh, owned by a plain role (no superuser, no RLS bypass), so the
engine runs as it would in a deployment.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROLE = "tinymemory_bench"


class Postgres:
    """Where fresh databases come from: a throwaway pgserver, or the server behind `--pg`."""

    def __init__(self, admin_url: str | None) -> None:
        self._handle: Any = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        if admin_url is None:
            import pgserver

            # run as root, pgserver's own system user must enter the data folder
            self._folder = tempfile.TemporaryDirectory(prefix="tinymemory-bench-pg-")
            os.chmod(self._folder.name, 0o777)
            self._handle = pgserver.get_server(self._folder.name, cleanup_mode="delete")
            admin_url = str(self._handle.get_uri())
        self.admin_url = admin_url
        self.last_url = ""
        self.sql(
            f"DO $$ BEGIN CREATE ROLE {ROLE} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '{ROLE}';"
            " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )

    def sql(self, statement: str, database: str | None = None) -> None:
        import psycopg

        url = self.admin_url if database is None else _with_database(self.admin_url, database)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    def fresh(self) -> str:
        name = f"bench_{uuid.uuid4().hex[:10]}"
        self.sql(f"CREATE DATABASE {name} OWNER {ROLE}")
        self.sql("CREATE EXTENSION IF NOT EXISTS vector", database=name)
        self.last_url = _with_user(_with_database(self.admin_url, name), ROLE)
        return self.last_url

    def analyze(self, url: str) -> None:
        """Planner statistics for every table of a database, as autovacuum keeps them."""
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ANALYZE")

    def size_mb(self, url: str) -> float:
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return float(row[0]) / 1e6 if row else float("nan")

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cleanup()
        if self._folder is not None:
            self._folder.cleanup()


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def _with_user(url: str, user: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}:{user}@{host}"))


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[Postgres]:
    pg = Postgres(url)
    try:
        yield pg
    finally:
        pg.close()


def template_copy(pg: Postgres, template: str) -> str:
    """A fresh database copied from `template` (which must have no open connections); its URL."""
    name = f"run_{uuid.uuid4().hex[:10]}"
    pg.sql(f"CREATE DATABASE {name} TEMPLATE {template} OWNER {ROLE}")
    return _with_user(_with_database(pg.admin_url, name), ROLE)
