"""deploy/initdb.sql on a real server: the owner migrates, the service role reads and writes rows under
row-level security and can neither change the schema nor see past its tenant."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
from tinymemory.api.errors import TinyMemoryError
from tinymemory.memory import Memory

from . import deployment


@pytest.fixture(scope="module")
def deployed() -> Iterator[dict[str, str]]:
    """initdb.sql run as the superuser (deployment.py); the owner's and the service role's URLs."""
    with deployment.deployed() as found:
        yield {"owner": found.owner, "app": found.app, "database": found.database}


def test_before_the_upgrade_the_service_role_is_told_what_to_run(deployed: dict[str, str]) -> None:
    with (
        pytest.raises(TinyMemoryError, match="db upgrade"),
        Memory(deployed["app"], namespace="workspace:acme/user:alice", embedder=None) as mem,
    ):
        mem.store("too early")


def test_owner_upgrades_then_the_service_role_serves(deployed: dict[str, str]) -> None:
    import psycopg

    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env["TINYMEMORY_DB"] = deployed["owner"]
    done = subprocess.run(
        [sys.executable, "-m", "tinymemory", "db", "upgrade"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"schema 0 -> \d+", done.stdout), done.stdout
    with Memory(deployed["app"], namespace="workspace:other/user:bob", embedder=None) as bob:
        bob.store("Bob prefers green tea too")
    with Memory(deployed["app"], namespace="workspace:acme/user:alice", embedder=None) as mem:
        alice = mem.store("Alice prefers green tea")
        found = mem.fetch("green tea")
        assert [h.item.id for h in found.hits] == [alice.id]
    with psycopg.connect(deployed["app"], autocommit=True) as conn:
        for statement in (
            "DROP TABLE items",
            "ALTER TABLE items DISABLE ROW LEVEL SECURITY",
            "CREATE TABLE x (a int)",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)  # type: ignore[arg-type]
        # row-level security: no setting, nothing; one tenant's setting, that tenant's rows only
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (0,)
        with conn.transaction():
            conn.execute("SELECT set_config('tinymemory.tenants', 'workspace:acme', true)")
            rows = conn.execute("SELECT DISTINCT tenant FROM items").fetchall()
        assert rows == [("workspace:acme",)]


def test_the_service_role_reads_through_the_engine_only_inside_its_reach(deployed: dict[str, str]) -> None:
    async def run() -> list[str]:
        from tinymemory.engines.postgres import PostgresEngine

        async with PostgresEngine(deployed["app"], embedder=None, migrate=False) as engine:
            res = await engine.fetch(
                FetchRequest(
                    query="green tea",
                    mode=FetchMode.LEXICAL,
                    filter=MetaFilter(reach=Reach.of(Namespace.parse("workspace:other/user:bob"))),
                )
            )
            return [h.item.text for h in res.hits]

    texts = asyncio.run(run())
    assert texts == ["Bob prefers green tea too"]
