"""open_engine: one rule turns a target into an engine (postgresql:// URL or SQLite path), passwords never
shown; Memory, the CLI and the service all open stores through it."""

from __future__ import annotations

import hashlib
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from postgres.server import pg_dsn
from tinymemory import Memory
from tinymemory.api import InvalidRequest, ListRequest, Namespace, Reach, Unavailable, Unsupported
from tinymemory.engines import is_postgres_url, open_engine, redact
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.retrieval.config import DEFAULT_CONFIG
from tinymemory.service.metrics import ServiceMetrics
from tinymemory.service.server import announce, dev_secret, dev_secret_path
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.tokens import issue_jwt

__all__ = ["pg_dsn"]  # the fixture: a fresh PostgreSQL database per test


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("postgresql://u:p@db.example/mem", True),
        ("postgres://db.example/mem", True),
        ("postgresql:///mem?host=/var/run/postgresql", True),
        ("mem.db", False),
        ("./postgresql/mem.db", False),
        ("host=db.example dbname=mem", False),
        ("POSTGRESQL://u@h/x", False),  # the scheme is written in lowercase, as libpq requires
        (Path("postgresql://x"), False),  # a Path is always a file
        (None, False),
    ],
)
def test_is_postgres_url(target: object, expected: bool) -> None:
    assert is_postgres_url(target) is expected


@pytest.mark.parametrize(
    ("target", "shown"),
    [
        ("postgresql://alice:s3cret@db.example:5432/mem", "postgresql://alice:***@db.example:5432/mem"),
        ("postgres://alice@db.example/mem", "postgres://alice@db.example/mem"),
        ("postgresql://db.example/mem", "postgresql://db.example/mem"),
        ("postgresql://alice:p%40ss@h1:5432,h2:5433/mem", "postgresql://alice:***@h1:5432,h2:5433/mem"),
        ("postgresql://alice:pa@ss/word@h/mem", "postgresql://alice:***@h/mem"),
        (
            "postgresql://alice@h/mem?sslmode=require&password=s3cret&application_name=x",
            "postgresql://alice@h/mem?sslmode=require&password=***&application_name=x",
        ),
        ("postgresql://:s3cret@h/mem", "postgresql://:***@h/mem"),
        ("mysql://root:s3cret@h/x", "mysql://root:***@h/x"),
        ("/var/lib/tinymemory/memory.db", "/var/lib/tinymemory/memory.db"),
        (Path("mem.db"), "mem.db"),
        (None, "default"),
    ],
)
def test_redact_hides_passwords_only(target: str | Path | None, shown: str) -> None:
    assert redact(target) == shown


def test_a_path_or_a_plain_string_opens_sqlite(tmp_path: Path) -> None:
    for target in (tmp_path / "a.db", str(tmp_path / "b.db")):
        engine = open_engine(target, embedder=None, retrieval=DEFAULT_CONFIG)
        assert isinstance(engine, SqliteEngine)
        assert engine.path == str(target)
        assert engine.descriptor.name == "sqlite" and engine.descriptor.embedder is None


def test_none_opens_the_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path / "home"))
    engine = open_engine(None, embedder=None)
    assert isinstance(engine, SqliteEngine)
    assert Path(engine.path) == tmp_path / "home" / "memory.db"


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("host=db.example dbname=mem password=s3cret", "libpq key=value string"),
        ("dbname=mem", "libpq key=value string"),
        ("mysql://root:s3cret@h/x", "scheme `mysql://`"),
        ("sqlite:///tmp/x.db", "scheme `sqlite://`"),
        ("mem\x00.db", "nul character"),
        (42, "got int"),
    ],
)
def test_bad_targets_are_refused_clearly(target: object, words: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        open_engine(target, embedder=None)  # type: ignore[arg-type]
    message = err.value.message
    assert message.startswith("open: `target`") and words in message.lower()
    assert "s3cret" not in message


def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="is a folder, not a SQLite file"):
        open_engine(tmp_path, embedder=None)


def test_memory_opens_a_path_through_the_same_rule(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", namespace="team:acme", embedder=None) as mem:
        stored = mem.store("The standup moved to 9:30")
        assert [h.item.id for h in mem.fetch("standup").hits] == [stored.id]
    with Memory(str(tmp_path / "m.db"), namespace="team:acme", embedder=None) as mem:
        assert mem.get([stored.id]).items[0].text == "The standup moved to 9:30"
    with pytest.raises(InvalidRequest, match="libpq"):
        Memory("host=localhost password=s3cret", embedder=None)


def test_sqlite_users_never_import_the_postgres_driver(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tinymemory import Memory\n"
        f"with Memory({str(tmp_path / 'x.db')!r}, embedder=None) as mem:\n"
        "    mem.store('a note')\n"
        "    mem.fetch('note')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool', 'pgvector')"
        " or m.startswith('tinymemory.engines.postgres'))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_url_without_the_driver_names_the_extra() -> None:
    """psycopg made unimportable in a child process, as on an install without the extra."""
    code = (
        "import sys\n"
        "sys.modules['psycopg'] = None\n"
        "from tinymemory.api import Unsupported\n"
        "from tinymemory.engines import open_engine\n"
        "try:\n"
        "    open_engine('postgresql://alice:s3cret@db.example/mem', embedder=None)\n"
        "except Unsupported as exc:\n"
        "    print(exc.message)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    message = proc.stdout.strip()
    assert message.startswith("open: a postgresql:// store needs the PostgreSQL driver")
    assert "psycopg is not installed" in message and 'pip install "tinymemory[postgres]"' in message
    assert "s3cret" not in message
    assert Unsupported.kind == "unsupported"


# -- the service's SQLite-only corners, for a URL ----------------------------------------------------


def test_dev_secret_of_a_url_lives_in_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path / "home"))
    url = "postgresql://alice:s3cret@db.example/mem"
    path = dev_secret_path(url)
    assert path.parent == tmp_path / "home"
    digest = hashlib.sha256(b"postgresql://alice:***@db.example/mem").hexdigest()[:16]
    assert path.name == f"postgres-{digest}.service-secret" and "s3cret" not in str(path)
    # a new password is the same store: the same secret, so dev tokens keep working
    assert dev_secret_path("postgresql://alice:rotated@db.example/mem") == path
    assert dev_secret_path("postgresql://alice@db.example/other") != path
    secret = dev_secret(url)
    assert len(secret) == 64 and dev_secret(url) == secret
    assert path.stat().st_mode & 0o777 == 0o600
    # a SQLite store keeps its secret beside the file, as before
    assert dev_secret_path(str(tmp_path / "m.db")) == tmp_path / "m.db.service-secret"


def test_the_service_never_shows_a_password() -> None:
    settings = ServiceSettings(db="postgresql://alice:s3cret@db.example/mem")
    assert "s3cret" not in repr(settings)
    out = io.StringIO()
    announce(out, "http://127.0.0.1:8765", settings, None)
    assert "(store: postgresql://alice:***@db.example/mem)" in out.getvalue()
    assert "s3cret" not in out.getvalue()


async def test_store_bytes_metric(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    async with SqliteEngine(db, embedder=None) as engine:
        await engine.list(ListRequest())  # opens the file
        metrics = ServiceMetrics(str(db), engine)
        text = (await metrics.scrape()).decode()
        line = next(x for x in text.splitlines() if x.startswith("tinymemory_store_bytes "))
        assert float(line.split()[1]) == db.stat().st_size + Path(str(db) + "-wal").stat().st_size
    # a URL whose engine does not report its size: the gauge is left out, the scrape still answers
    remote = ServiceMetrics("postgresql://alice:s3cret@db.example/mem", None)
    text = (await remote.scrape()).decode()
    assert "tinymemory_store_bytes " not in text and "tinymemory_http_requests" in text


# -- PostgreSQL (a throwaway server, a fresh database per test; see tests/postgres/server.py) -----------


def test_a_url_opens_postgres_without_connecting() -> None:
    from tinymemory.engines.postgres import PostgresEngine

    engine = open_engine("postgres://alice:s3cret@127.0.0.1:1/mem", embedder=None, max_size=2)
    assert isinstance(engine, PostgresEngine) and engine.descriptor.name == "postgres"


async def test_an_unreachable_database_fails_on_use_without_its_password() -> None:
    engine = open_engine("postgresql://alice:s3cret@127.0.0.1:1/mem?connect_timeout=2", embedder=None)
    try:
        with pytest.raises(Unavailable) as err:
            await engine.list(ListRequest())
    finally:
        await engine.close()
    assert err.value.message.startswith("list: ") and "s3cret" not in err.value.message


def test_memory_round_trip_over_postgres(pg_dsn: str) -> None:
    with Memory(pg_dsn, namespace="team:acme/agent:writer", embedder=None) as mem:
        assert mem.descriptor.name == "postgres"
        stored = mem.store("Dana prefers short paragraphs", tags=["preference"])
        assert mem.store("Dana prefers short paragraphs").replayed
        assert [h.item.id for h in mem.fetch("short paragraphs").hits] == [stored.id]
    with Memory(pg_dsn, namespace="team:acme/agent:writer", embedder=None) as again:
        got = again.get([stored.id]).items
        assert [(i.id, i.text) for i in got] == [(stored.id, "Dana prefers short paragraphs")]


SECRET = "targets-secret-" + "z" * 40
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+) \(store: (.*)\)")


def test_serve_over_postgres(pg_dsn: str, tmp_path: Path) -> None:
    """`tinymemory serve --db postgresql://...` as an operator runs it: a real process, a real database."""
    url = pg_dsn.replace("postgresql://tinymemory@", "postgresql://tinymemory:s3cret@", 1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env.update(TINYMEMORY_HOME=str(tmp_path), TINYMEMORY_JWT_SECRET=SECRET)
    argv = [sys.executable, "-m", "tinymemory", "serve", "--db", url, "--port", "0", "--no-embedder"]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        found = None
        while found is None:
            line = proc.stdout.readline()
            if not line:
                pytest.fail("serve printed no URL:\n" + "".join(seen))
            seen.append(line)
            found = URL_LINE.search(line)
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
        base, store = found.group(1), found.group(2)
        assert store == redact(url) and "s3cret" not in "".join(seen)
        token = issue_jwt(SECRET, "acme", "alice")
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            deadline = time.monotonic() + 60
            while (ready := http.get("/readyz")).status_code != 200:
                assert time.monotonic() < deadline, ready.text
                time.sleep(0.1)
            assert ready.json() == {"status": "ready"}
            saved = http.post("/api/v1/memory/remember", json={"content": "Rita's locker is number 42"})
            assert saved.status_code == 200, saved.text
            hits = http.post("/api/v1/memory/recall", json={"query": "locker number"}).json()["memories"]
            assert [h["id"] for h in hits] == [saved.json()["id"]]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # the memory is in the database, for any other engine on it
    with Memory(pg_dsn, reach=Reach.subtree(Namespace.root()), embedder=None) as mem:
        assert mem.get([saved.json()["id"]]).items[0].text == "Rita's locker is number 42"
