"""A pytest plugin that makes LangGraph's own store suites build TinyMemoryStore (see langgraph_suite.py).

LangGraph's suites name their store class at module level (`InMemoryStore(...)` in the checkpoint
suite, `SqliteStore.from_conn_string(...)` and `AsyncSqliteStore.from_conn_string(...)` in the SQLite
suites) and every fixture looks that name up when it runs. After collection this plugin rebinds the names
in each collected module to the classes below, which open a TinyMemoryStore on a real SQLite file (a
fresh temporary one for `":memory:"` or no connection string, the suite's own file otherwise), or on the
a fresh database of the repository's throwaway PostgreSQL with
`TINYMEMORY_LANGGRAPH_SUITE_ENGINE=postgres`. The index and TTL configs reach the store
exactly as the suites wrote them. With `TINYMEMORY_LANGGRAPH_SUITE_STORE=inmemory` it puts LangGraph's
InMemoryStore in the SQLite suites' place instead, for its counts beside ours.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from tinymemory.integrations.langgraph import AsyncTinyMemoryStore, TinyMemoryStore

_ROOT = Path(tempfile.mkdtemp(prefix="tinymemory-lg-suite-"))
_OPEN: list[TinyMemoryStore] = []
_SIDE_FILES: list[str] = []


def _target(conn: str | None) -> str:
    if os.environ.get("TINYMEMORY_LANGGRAPH_SUITE_ENGINE") == "postgres":
        # the repository's throwaway server (tests/postgres/server.py): a fresh database per store
        from postgres import server

        return server.fresh_database()
    if conn is None or conn == ":memory:":
        return str(Path(tempfile.mkdtemp(dir=_ROOT)) / "store.db")
    _SIDE_FILES.append(conn)
    return conn


def _open(cls: type[TinyMemoryStore], conn: str | None, kwargs: dict[str, Any]) -> TinyMemoryStore:
    store = cls(path=_target(conn), **kwargs)
    _OPEN.append(store)
    return store


class TinyAsInMemory(TinyMemoryStore):
    """`InMemoryStore(index=..., ttl=...)` as the checkpoint suite calls it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(path=_target(None), **kwargs)
        _OPEN.append(self)


class TinyAsSqlite(TinyMemoryStore):
    """`SqliteStore.from_conn_string(conn, index=..., ttl=...)` as the SQLite suites call it."""

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, **kwargs: Any) -> Iterator[TinyMemoryStore]:
        store = _open(cls, conn_string, kwargs)
        try:
            yield store
        finally:
            store.close()

    def setup(self) -> None:
        """The engine creates its schema when it opens."""


class TinyAsAsyncSqlite(AsyncTinyMemoryStore):
    """`AsyncSqliteStore.from_conn_string(...)` as the async SQLite suites call it."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, **kwargs: Any) -> AsyncIterator[AsyncTinyMemoryStore]:
        store = _open(cls, conn_string, kwargs)
        assert isinstance(store, AsyncTinyMemoryStore)
        try:
            yield store
        finally:
            await store.aclose()

    async def setup(self) -> None:
        """The engine creates its schema when it opens."""


class MemoryAsSqlite(InMemoryStore):
    """LangGraph's InMemoryStore in the SQLite suites' place (for its column beside ours); it has no
    TTL, so a test that configures one is skipped."""

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None
    ) -> Iterator[InMemoryStore]:
        if ttl is not None:
            pytest.skip("InMemoryStore has no TTL")
        yield cls(index=index)

    def setup(self) -> None:
        """Nothing to set up."""


class MemoryAsAsyncSqlite(InMemoryStore):
    """InMemoryStore in the async SQLite suites' place."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None
    ) -> AsyncIterator[InMemoryStore]:
        if ttl is not None:
            pytest.skip("InMemoryStore has no TTL")
        yield cls(index=index)

    async def setup(self) -> None:
        """Nothing to set up."""


REPLACEMENTS: dict[str, type[BaseStore]] = (
    {"SqliteStore": MemoryAsSqlite, "AsyncSqliteStore": MemoryAsAsyncSqlite}
    if os.environ.get("TINYMEMORY_LANGGRAPH_SUITE_STORE") == "inmemory"
    else {"InMemoryStore": TinyAsInMemory, "SqliteStore": TinyAsSqlite, "AsyncSqliteStore": TinyAsAsyncSqlite}
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
    modules = {id(item.module): item.module for item in items if getattr(item, "module", None)}
    for module in modules.values():
        for name, cls in REPLACEMENTS.items():
            if hasattr(module, name):
                setattr(module, name, cls)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for store in _OPEN:
        store.close()
    for path in _SIDE_FILES:  # the engine's files beside a suite's own temporary file
        for side in Path(path).parent.glob(Path(path).name + "?*"):
            if side.is_dir():
                shutil.rmtree(side, ignore_errors=True)
            else:
                side.unlink(missing_ok=True)
    shutil.rmtree(_ROOT, ignore_errors=True)
