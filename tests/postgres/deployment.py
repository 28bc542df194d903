"""deploy/initdb.sql run on the session's server, with a per-run suffix on its role and database names
(the server is shared by the session): what the deployment tests connect to (no tests here)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .server import NoServer, server, skip_or_fail

INITDB = Path(__file__).resolve().parents[2] / "deploy" / "initdb.sql"


def statements(script: str) -> list[str]:
    """initdb.sql's statements in order; psql's meta-commands (`\\connect db`) stand alone, and a
    `$$`-quoted body stays whole."""
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for line in script.splitlines():
        stripped = line.strip()
        if not quoted and (not stripped or stripped.startswith("--")):
            continue
        if not quoted and stripped.startswith("\\"):
            out.append(stripped)
            continue
        if line.count("$$") % 2:
            quoted = not quoted
        current.append(line)
        if not quoted and stripped.endswith(";"):
            out.append("\n".join(current).rstrip().rstrip(";"))
            current = []
    return out


@dataclass(frozen=True)
class Deployment:
    """The owner's and the service role's URLs, the superuser's, and the names initdb.sql created."""

    owner: str
    app: str
    admin: str
    database: str
    owner_role: str
    app_role: str


@contextmanager
def deployed() -> Iterator[Deployment]:
    """initdb.sql as the superuser; everything it made is dropped afterwards."""
    import psycopg

    try:
        srv = server()
    except NoServer as exc:
        skip_or_fail(str(exc))
        raise
    tag = uuid.uuid4().hex[:8]
    owner_role, app_role, database = f"tm_owner_{tag}", f"tm_app_{tag}", f"tm_deploy_{tag}"
    names = {
        "tinymemory_owner": owner_role,
        "tinymemory_app": app_role,
        "DATABASE tinymemory": f"DATABASE {database}",
    }
    script = INITDB.read_text()
    for old, new in names.items():
        script = re.sub(rf"\b{re.escape(old)}\b", new, script)
    target = "postgres"
    for statement in statements(script):
        if statement.startswith("\\connect"):
            target = database
            continue
        with psycopg.connect(srv.dsn(target, "postgres"), autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]
    try:
        yield Deployment(
            owner=srv.dsn(database, owner_role),
            app=srv.dsn(database, app_role),
            admin=srv.dsn(database, "postgres"),
            database=database,
            owner_role=owner_role,
            app_role=app_role,
        )
    finally:
        with psycopg.connect(srv.dsn("postgres", "postgres"), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")  # type: ignore[arg-type]
            conn.execute(f"DROP OWNED BY {app_role}, {owner_role}")  # type: ignore[arg-type]
            conn.execute(f"DROP ROLE IF EXISTS {app_role}")  # type: ignore[arg-type]
            conn.execute(f"DROP ROLE IF EXISTS {owner_role}")  # type: ignore[arg-type]
