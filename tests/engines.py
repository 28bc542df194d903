"""Which engine the suites above the engine run on: one switch, `TINYMEMORY_TEST_ENGINE`.

`sqlite` (the default) keeps every test on a real SQLite file; `postgres` runs the same tests on a fresh
database of the session's throwaway PostgreSQL (tests/postgres/server.py). A test names its store by a
SQLite path as before; under postgres each distinct path maps to one database for the whole session, so
opening the same path twice (a reopen, a CLI subprocess beside an engine) still means the same store.

Tests that are inherently about SQLite carry `@pytest.mark.sqlite_only` (skipped under postgres).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from tinymemory.api.engine import MemoryEngine
from tinymemory.engines.sqlite import SqliteEngine

VARIABLE = "TINYMEMORY_TEST_ENGINE"
ENGINES = ("sqlite", "postgres")

_dsns: dict[str, str] = {}
_lock = threading.Lock()


def engine_name() -> str:
    """The engine the switch names; anything else is a setup error, not a silent default."""
    name = os.environ.get(VARIABLE, "").strip().lower() or "sqlite"
    if name not in ENGINES:
        raise RuntimeError(f"{VARIABLE} must be one of {', '.join(ENGINES)}, got {name!r}")
    return name


def is_postgres() -> bool:
    return engine_name() == "postgres"


def _fresh_dsn() -> str:
    from postgres import server

    try:
        return server.fresh_database()
    except server.NoServer as exc:
        server.skip_or_fail(str(exc))
        raise  # unreachable: skip_or_fail raises


def _dsn_for(path: Path | str | None) -> str:
    """One database per SQLite path for the session (a fresh one when no path is given)."""
    if path is None:
        return _fresh_dsn()
    key = str(Path(path).resolve())
    with _lock:
        found = _dsns.get(key)
        if found is None:
            found = _dsns[key] = _fresh_dsn()
        return found


def make_engine(path: Path | str | None, **kw: Any) -> MemoryEngine:
    """SqliteEngine(path, **kw), or under postgres a PostgresEngine over the path's database."""
    if not is_postgres():
        return SqliteEngine(path, **kw)
    from tinymemory.engines.postgres import PostgresEngine

    return PostgresEngine(_dsn_for(path), **kw)


def store_target(path: Path | str) -> str:
    """The store as a target string (for --db, ServiceSettings.db, $TINYMEMORY_DB): the SQLite path
    itself, or under postgres the postgresql:// URL of the path's database. A directory means a store
    file inside it."""
    path = Path(path)
    if path.is_dir():
        path = path / "memory.db"
    return _dsn_for(path) if is_postgres() else str(path)


def skip_sqlite_only(items: list[pytest.Item]) -> None:
    """Skip tests marked `sqlite_only` when the switch names postgres."""
    if not is_postgres():
        return
    skip = pytest.mark.skip(reason=f"sqlite only ({VARIABLE}=postgres)")
    for item in items:
        if item.get_closest_marker("sqlite_only") is not None:
            item.add_marker(skip)
