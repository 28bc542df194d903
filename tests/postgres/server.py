"""A throwaway PostgreSQL server for the tests: started once per session, a fresh database per test.

The server comes from the `pgserver` wheel (PostgreSQL with pgvector, no system install). Each test gets
its own database, owned by `tinymemory`, a plain LOGIN role: superusers bypass row-level security, so the
engine must be tested as the role a deployment would give it. The `vector` extension is created in each
new database by the superuser before the DSN is handed over (creating it needs privileges the role
lacks, as in production).

Without a server, tests skip with the reason; with the `CI` environment variable set they fail instead,
so a broken setup can never pass silently.

Use the `pg_dsn` fixture (re-exported by `tests/postgres/conftest.py`; another directory's conftest
can import it from here), or call `fresh_database()` from code that is not a fixture.
"""

from __future__ import annotations

import atexit
import os
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest

ROLE = "tinymemory"

_lock = threading.Lock()
_state: dict[str, object] = {}


@dataclass(frozen=True)
class Server:
    """The running server: where its socket is and the superuser's DSN."""

    socket_dir: str
    admin_dsn: str

    def dsn(self, database: str, user: str = ROLE) -> str:
        return f"postgresql://{user}@/{database}?host={quote(self.socket_dir, safe='/')}"


class NoServer(RuntimeError):
    """The server could not start here."""


def _start() -> Server:
    try:
        import pgserver
        import psycopg
    except ImportError as exc:
        raise NoServer(f"pgserver or psycopg is not installed ({exc})") from exc
    # Run as root, pgserver runs postgres as a system user of its own, which must be able to enter the
    # data folder: a private temp folder opened to everyone (deleted when the session ends).
    folder = tempfile.mkdtemp(prefix="tinymemory-pg-")
    os.chmod(folder, 0o777)
    try:
        handle = pgserver.get_server(folder, cleanup_mode="delete")
    except Exception as exc:
        raise NoServer(f"pgserver could not start PostgreSQL ({exc})") from exc
    _state["handle"] = handle  # keeps the server alive for the session
    atexit.register(handle.cleanup)
    server = Server(folder, handle.get_uri())
    with psycopg.connect(server.dsn("postgres", "postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone()
        if exists is None:
            conn.execute(f"CREATE ROLE {ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS")
        # a template holding the extension: each test's database is a cheap copy of it
        conn.execute("CREATE DATABASE tm_template")
    with psycopg.connect(server.dsn("tm_template", "postgres"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return server


def server() -> Server:
    """The session's server, started on first use. Raises NoServer when it cannot start."""
    with _lock:
        found = _state.get("server")
        if isinstance(found, Server):
            return found
        failed = _state.get("failed")
        if isinstance(failed, str):
            raise NoServer(failed)
        try:
            started = _start()
        except NoServer as exc:
            _state["failed"] = str(exc)
            raise
        _state["server"] = started
        return started


def skip_or_fail(reason: str) -> None:
    """Outside CI a missing server skips; in CI it fails (a test run must never pass without it)."""
    message = f"postgres: {reason}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def available() -> bool:
    """Whether a server runs here (starting it if needed); for `EngineFactory.skip_unless`."""
    if os.environ.get("CI"):
        server()  # in CI a server that cannot start is an error, raised here
        return True
    try:
        server()
    except NoServer:
        return False
    return True


def fresh_database(*, with_vector: bool = True) -> str:
    """Create an empty database owned by the `tinymemory` role, with pgvector unless told otherwise;
    return that role's DSN."""
    import psycopg

    srv = server()
    name = f"tm_{uuid.uuid4().hex[:16]}"
    template = "tm_template" if with_vector else "template0"
    with psycopg.connect(srv.dsn("postgres", "postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} OWNER {ROLE} TEMPLATE {template}")
    return srv.dsn(name)


def drop_database(dsn: str) -> None:
    """Drop a database made by `fresh_database` (connections still open to it are ended)."""
    import psycopg

    srv = server()
    name = psycopg.conninfo.conninfo_to_dict(dsn).get("dbname")
    if not isinstance(name, str) or not name.startswith("tm_") or name == "tm_template":
        raise ValueError(f"not a test database: {name!r}")
    with psycopg.connect(srv.dsn("postgres", "postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def admin_dsn(dsn: str) -> str:
    """The superuser's DSN for the same database (for setup a plain role may not do)."""
    import psycopg

    name = psycopg.conninfo.conninfo_to_dict(dsn).get("dbname")
    return server().dsn(str(name), "postgres")


@pytest.fixture
def pg_dsn() -> Iterator[str]:
    """A fresh, empty database for this test, as the `tinymemory` role; dropped afterwards."""
    try:
        dsn = fresh_database()
    except NoServer as exc:
        skip_or_fail(str(exc))
        raise  # unreachable: skip_or_fail raises
    try:
        yield dsn
    finally:
        drop_database(dsn)
