"""Row-level security: a connection sees only the tenants its `tinymemory.tenants` setting admits.

The engine confines every query by its filter already; these tests run hand-written SQL, as a query
that forgot its filter would, and check the policies alone keep other tenants' rows out.
"""

from __future__ import annotations

import psycopg
import pytest

from tinymemory.api import About, ForgetRequest, Namespace, Reach, Relation
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.postgres.tenancy import reach_tenants, setting

from .helpers import HashEmbedder, note

TABLES = ("items", "item_tags", "item_evidence", "relations", "vectors", "lex_ns", "lex_df")


async def _fill(dsn: str) -> None:
    async with PostgresEngine(dsn, embedder=HashEmbedder()) as engine:
        for tenant in ("team:a", "team:b"):
            first = await engine.store(note(f"{tenant} first note", f"{tenant}/user:u"))
            await engine.store(
                note(
                    f"{tenant} derived note",
                    f"{tenant}/user:u",
                    tags=("t",),
                    evidence=(first.id,),
                    about=About("user", "city"),
                    relations=(Relation("Dana", "works_on", "Atlas"),),
                )
            )
        gone = await engine.store(note("team:b forgotten note", "team:b"))
        await engine.forget(ForgetRequest(ids=(gone.id,)))
        await engine.store(note("root note", ""))


def _tenants_seen(conn: psycopg.Connection[tuple[object, ...]], table: str) -> set[str]:
    return {str(r[0]) for r in conn.execute(f"SELECT tenant FROM {table}").fetchall()}


@pytest.mark.asyncio
async def test_a_connection_sees_only_the_tenants_it_admits(pg_dsn: str) -> None:
    await _fill(pg_dsn)
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("SELECT set_config('tinymemory.tenants', '*', false)")
        for table in TABLES:
            assert {"team:a", "team:b"} <= _tenants_seen(conn, table), table
        conn.execute("SELECT set_config('tinymemory.tenants', 'team:a', false)")
        for table in TABLES:
            assert _tenants_seen(conn, table) == {"team:a"}, table
            rows = conn.execute(f"SELECT * FROM {table}").fetchall()
            assert rows and "team:b" not in repr(rows), table
        # a reach inheriting from team:a also admits the root's tenant, and still not team:b
        conn.execute(
            "SELECT set_config('tinymemory.tenants', %s, false)",
            (setting(reach_tenants(Reach.of(Namespace.parse("team:a/user:u")))),),
        )
        assert _tenants_seen(conn, "items") == {"team:a", ""}


@pytest.mark.parametrize("value", [None, ""])
@pytest.mark.asyncio
async def test_without_the_setting_no_row_is_visible(pg_dsn: str, value: str | None) -> None:
    await _fill(pg_dsn)
    with psycopg.connect(pg_dsn) as conn:
        if value is not None:
            conn.execute("SELECT set_config('tinymemory.tenants', %s, false)", (value,))
        for table in TABLES:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table


@pytest.mark.asyncio
async def test_writes_outside_the_admitted_tenants_are_refused(pg_dsn: str) -> None:
    await _fill(pg_dsn)
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("SELECT set_config('tinymemory.tenants', 'team:a', false)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO item_tags (tenant, tag, item_rowid) VALUES ('team:b', 'x', 1)")
        conn.rollback()
        # an update or delete cannot reach the other tenant's rows at all
        assert conn.execute("UPDATE items SET text = 'x' WHERE tenant = 'team:b'").rowcount == 0
        assert conn.execute("DELETE FROM lex_df WHERE tenant = 'team:b'").rowcount == 0


def test_the_role_is_bound_by_the_policies(pg_dsn: str) -> None:
    """The tests run as a plain role: a superuser or BYPASSRLS role would pass the tests above vacuously."""
    with psycopg.connect(pg_dsn) as conn:
        row = conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
    assert row == (False, False)
