"""Schema migrations: applied once however many engines open a fresh database at the same time, never
applied to a database newer than the code, and a missing pgvector is reported with its fix."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from tinymemory.api import Conflict, GetRequest, Unavailable
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.postgres.schema import SCHEMA_VERSION, vector_index_name

from . import server
from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio


async def test_engines_opening_a_fresh_database_together_make_one_schema(pg_dsn: str) -> None:
    engines = [PostgresEngine(pg_dsn, embedder=HashEmbedder(), max_size=2) for _ in range(6)]
    try:
        results = await asyncio.gather(
            *(e.store(note(f"opened by engine {n}")) for n, e in enumerate(engines))
        )
        got = await engines[0].get(GetRequest(ids=tuple(r.id for r in results)))
        assert len(got.items) == 6
    finally:
        await asyncio.gather(*(e.close() for e in engines))
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'vectors'")]
    assert names.count(vector_index_name("hash-32", 32)) == 1


async def test_upgrade_reports_the_versions_and_is_idempotent(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None, migrate=False) as engine:
        assert await engine.upgrade() == (0, SCHEMA_VERSION)
        assert await engine.upgrade() == (SCHEMA_VERSION, SCHEMA_VERSION)
        stored = await engine.store(note("after an explicit upgrade"))
        assert not stored.replayed


async def test_without_migrate_an_old_database_is_a_conflict_naming_the_fix(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None, migrate=False) as engine:
        with pytest.raises(Conflict, match="tinymemory db upgrade"):
            await engine.store(note("never written"))


async def test_a_database_newer_than_the_code_is_a_conflict_and_untouched(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None) as engine:
        await engine.store(note("before the future"))
    with psycopg.connect(server.admin_dsn(pg_dsn), autocommit=True) as conn:
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    for migrate in (True, False):
        async with PostgresEngine(pg_dsn, embedder=None, migrate=migrate) as engine:
            with pytest.raises(Conflict, match=f"version {SCHEMA_VERSION + 1} is newer"):
                await engine.store(note("never written"))
    with psycopg.connect(server.admin_dsn(pg_dsn)) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION + 1,)


async def test_a_database_without_pgvector_says_how_to_install_it() -> None:
    try:
        dsn = server.fresh_database(with_vector=False)
    except server.NoServer as exc:
        server.skip_or_fail(str(exc))
        raise
    try:
        async with PostgresEngine(dsn, embedder=None) as engine:
            with pytest.raises(Unavailable, match="CREATE EXTENSION vector"):
                await engine.store(note("never written"))
    finally:
        server.drop_database(dsn)


async def test_an_unreachable_server_is_unavailable() -> None:
    async with PostgresEngine("postgresql://nobody@/absent?host=/nonexistent-dir", embedder=None) as engine:
        with pytest.raises(Unavailable, match="store: cannot connect to the database"):
            await engine.store(note("never written"))
