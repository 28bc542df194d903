"""deploy/initdb.sql on a real server: the owner migrates, the service role reads and writes rows under
row-level security and can neither change the schema nor see past its tenant."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
from tinymemory.api.errors import TinyMemoryError
from tinymemory.memory import Memory

from .server import NoServer, server, skip_or_fail

INITDB = Path(__file__).resolve().parents[2] / "deploy" / "initdb.sql"


def _statements(script: str) -> list[str]:
    """initdb.sql's statements in order; psql's meta-commands (`\\connect db`) stand alone."""
    out: list[str] = []
    current: list[str] = []
    for line in script.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        if stripped.startswith("\\"):
            out.append(stripped)
            continue
        current.append(line)
        if stripped.endswith(";"):
            out.append("\n".join(current).rstrip().rstrip(";"))
            current = []
    return out


@pytest.fixture(scope="module")
def deployed() -> Iterator[dict[str, str]]:
    """initdb.sql run as the superuser, with a per-run suffix on the role and database names (the
    server is shared by the session); the owner's and the service role's URLs."""
    import psycopg

    try:
        srv = server()
    except NoServer as exc:
        skip_or_fail(str(exc))
        raise
    tag = uuid.uuid4().hex[:8]
    names = {
        "tinymemory_owner": f"tm_owner_{tag}",
        "tinymemory_app": f"tm_app_{tag}",
        "DATABASE tinymemory": f"DATABASE tm_deploy_{tag}",
    }
    script = INITDB.read_text()
    for old, new in names.items():
        script = re.sub(rf"\b{re.escape(old)}\b", new, script)
    database = f"tm_deploy_{tag}"
    target = "postgres"
    for statement in _statements(script):
        if statement.startswith("\\connect"):
            target = database
            continue
        with psycopg.connect(srv.dsn(target, "postgres"), autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]
    owner = srv.dsn(database, f"tm_owner_{tag}")
    app = srv.dsn(database, f"tm_app_{tag}")
    yield {"owner": owner, "app": app, "database": database}
    with psycopg.connect(srv.dsn("postgres", "postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")  # type: ignore[arg-type]
        conn.execute(f"DROP OWNED BY tm_app_{tag}, tm_owner_{tag}")  # type: ignore[arg-type]
        conn.execute(f"DROP ROLE IF EXISTS tm_app_{tag}")  # type: ignore[arg-type]
        conn.execute(f"DROP ROLE IF EXISTS tm_owner_{tag}")  # type: ignore[arg-type]


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
