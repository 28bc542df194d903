"""The connection pool and the two kinds of transaction every operation runs in.

Reads run REPEATABLE READ and READ ONLY, so every query of one read sees one snapshot. Writes run READ
COMMITTED and first take advisory locks: a shared lock on the whole store and an exclusive lock per
tenant they write (sorted, so two writers never wait on each other in a cycle), or the whole store's
exclusive lock when they may touch any tenant. Each later statement then sees every write committed
before the lock was granted, so replays by content key, supersession by about key and thread links are
race-free across engines, processes and replicas, and rowids grow in commit order within a tenant.

Both kinds set `tinymemory.tenants` for the transaction (see tenancy.py), which row-level security
checks on every table. Database errors leave as `Unavailable("<op>: database error (...)")`.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg_pool import AsyncConnectionPool

from tinymemory.api.errors import TinyMemoryError, Unavailable
from tinymemory.engines.cursors import KEY_NAME
from tinymemory.engines.postgres import tenancy
from tinymemory.engines.postgres.schema import LOCK_CLASS_GLOBAL, LOCK_CLASS_TENANT
from tinymemory.engines.postgres.tenancy import Tenants

T = TypeVar("T")
Conn = psycopg.AsyncConnection[tuple[Any, ...]]
Work = Callable[[Conn], Awaitable[T]]

CONNECT_TIMEOUT_S = 30.0


def describe(exc: BaseException) -> str:
    """A driver error on one line (its first), for the `database error (...)` message."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def database_error(op: str, exc: BaseException) -> Unavailable:
    return Unavailable(f"{op}: database error ({describe(exc)})")


async def connect(op: str, dsn: str) -> Conn:
    """One autocommit connection outside the pool (migrations, the schema check)."""
    try:
        return await psycopg.AsyncConnection.connect(dsn, autocommit=True, connect_timeout=30)
    except psycopg.Error as exc:
        raise Unavailable(f"{op}: cannot connect to the database ({describe(exc)})") from None


async def _configure(conn: Conn) -> None:
    await register_vector_async(conn)


class Database:
    """A lazily opened pool of autocommit connections; each operation runs in an explicit transaction."""

    def __init__(self, dsn: str, min_size: int, max_size: int) -> None:
        self._pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            dsn,
            min_size=min_size,
            max_size=max_size,
            open=False,
            configure=_configure,
            kwargs={"autocommit": True},
            timeout=CONNECT_TIMEOUT_S,
        )

    async def open(self, op: str) -> None:
        try:
            await self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:  # the pool's own errors (timeout, closed) are psycopg errors
            await self._pool.close()
            raise Unavailable(f"{op}: cannot connect to the database ({describe(exc)})") from None

    async def close(self) -> None:
        await self._pool.close()

    async def read(self, op: str, tenants: Tenants, fn: Work[T]) -> T:
        """`fn` in one read-only snapshot, admitted to `tenants` (None: all)."""

        async def run(conn: Conn) -> T:
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            await _admit(conn, tenants)
            return await fn(conn)

        return await self._transaction(op, run)

    async def write(self, op: str, tenants: Tenants, fn: Work[T]) -> T:
        """`fn` in one transaction holding the write locks of `tenants` (None: every tenant), admitted to
        those tenants."""

        async def run(conn: Conn) -> T:
            await lock(conn, tenants)
            await _admit(conn, tenants)
            return await fn(conn)

        return await self._transaction(op, run)

    async def _transaction(self, op: str, fn: Work[T]) -> T:
        try:
            async with self._pool.connection() as conn, conn.transaction():
                return await fn(conn)
        except TinyMemoryError:
            raise
        except psycopg.Error as exc:  # the pool's own errors (timeout, closed) are psycopg errors
            raise database_error(op, exc) from exc


async def _admit(conn: Conn, tenants: Tenants) -> None:
    await conn.execute("SELECT set_config('tinymemory.tenants', %s, true)", (tenancy.setting(tenants),))


async def lock(conn: Conn, tenants: Tenants) -> None:
    """The write locks, held to the end of the transaction: the store's lock shared and each tenant's
    exclusive (sorted), or the store's lock exclusive when `tenants` is None."""
    if tenants is None:
        await conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASS_GLOBAL,))
        return
    await conn.execute("SELECT pg_advisory_xact_lock_shared(%s, 0)", (LOCK_CLASS_GLOBAL,))
    for tenant in sorted(tenants):
        await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_CLASS_TENANT, tenant))


async def load_cursor_key(conn: Conn) -> bytes:
    """The database's cursor key (engine_meta.cursor_key), created on first need; every engine on the
    database, in any process, ends up with the one committed first."""
    fresh = base64.b64encode(os.urandom(32)).decode("ascii")
    await conn.execute(
        "INSERT INTO engine_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING", (KEY_NAME, fresh)
    )
    cur = await conn.execute("SELECT value FROM engine_meta WHERE key = %s", (KEY_NAME,))
    row = await cur.fetchone()
    try:
        key = base64.b64decode(str(row[0]) if row else "", validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise Unavailable("cursor: the database's cursor key is damaged (engine_meta.cursor_key)")
    return key
