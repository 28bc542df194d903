"""`tinymemory db upgrade|status` over real stores (SQLite files, PostgreSQL databases): upgrade reports its
step, status only reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from postgres.server import pg_dsn
from tinymemory import Memory
from tinymemory.cli import main
from tinymemory.engines import redact
from tinymemory.engines.sqlite.schema import SCHEMA_VERSION, migrate, user_version

__all__ = ["pg_dsn"]  # the fixture: a fresh PostgreSQL database per test


def run(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> tuple[Any, str]:
    """The command's JSON (stdout, or the error on stderr) and its stderr."""
    assert main(list(argv)) == code
    out, err = capsys.readouterr()
    if code == 0:
        return json.loads(out), err
    return json.loads(err.strip().splitlines()[-1]), err


def file_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return user_version(conn)
    finally:
        conn.close()


def old_file(path: Path, version: int) -> None:
    """A file left at an older schema by an earlier tinymemory (the real migrations, stopped early)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        migrate(conn, target=version)
    finally:
        conn.close()


def test_upgrade_creates_a_new_store_then_has_nothing_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new.db"
    first, err = run(capsys, "db", "upgrade", "--db", str(db))
    assert first == {
        "store": str(db),
        "engine": "sqlite",
        "schema_before": 0,
        "schema_after": SCHEMA_VERSION,
        "summary": f"schema 0 -> {SCHEMA_VERSION}",
    }
    assert f"tinymemory db upgrade: schema 0 -> {SCHEMA_VERSION}" in err
    again, err = run(capsys, "db", "upgrade", "--db", str(db))
    assert again["summary"] == f"schema {SCHEMA_VERSION} -> {SCHEMA_VERSION}"
    assert file_version(db) == SCHEMA_VERSION


def test_upgrade_an_old_file_reports_both_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "old.db"
    old_file(db, 5)
    status, _ = run(capsys, "db", "status", "--db", str(db))
    assert status["schema_version"] == 5 and status["schema_current"] == SCHEMA_VERSION
    assert status["schema_state"] == "behind" and status["items"] is None
    assert file_version(db) == 5  # status never migrates
    done, _ = run(capsys, "db", "upgrade", "--db", str(db))
    assert (done["schema_before"], done["schema_after"]) == (5, SCHEMA_VERSION)
    assert file_version(db) == SCHEMA_VERSION


def test_status_shows_engine_schema_and_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    with Memory(db, namespace="team:acme", embedder=None) as mem:
        mem.store("The release train leaves on Thursdays")
        mem.store("Dana reviews the changelog")
        mem.forget([mem.store("a note to forget").id])
    status, _ = run(capsys, "db", "status", "--db", str(db))
    assert status == {
        "store": str(db),
        "engine": "sqlite",
        "engine_version": status["engine_version"],
        "schema_version": SCHEMA_VERSION,
        "schema_current": SCHEMA_VERSION,
        "schema_state": "current",
        "items": 2,
        "items_capped": False,
        "integrity": "ok",
    }
    assert status["engine_version"].endswith(f"+schema.{SCHEMA_VERSION}")
    unchecked, _ = run(capsys, "db", "status", "--db", str(db), "--no-check")
    assert unchecked["integrity"] == "not checked" and unchecked["items"] == 2


def test_status_of_a_file_with_a_damaged_page_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page overwritten in the middle of the file: the header still reads, so only SQLite's own
    check finds it; status exits with the damaged-file error instead of reporting a healthy store."""
    db = tmp_path / "m.db"
    with Memory(db, namespace="team:acme", embedder=None) as mem:
        mem.store_many([f"note number {i} about the release train" for i in range(400)])
    page_size = 4096
    raw = bytearray(db.read_bytes())
    middle = len(raw) // page_size // 2 * page_size
    assert middle > 6 * page_size
    raw[middle : middle + page_size] = b"\xff" * page_size
    db.write_bytes(bytes(raw))
    error, _ = run(capsys, "db", "status", "--db", str(db), code=2)
    assert error["error"] == "unavailable"
    assert error["message"].startswith("db status: the database file is damaged (")
    assert "`.recover`" in error["message"] and "***" not in error["message"]


def test_status_of_a_missing_store_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "absent.db"
    error, _ = run(capsys, "db", "status", "--db", str(db), code=2)
    assert error["error"] == "not_found"
    assert error["message"].startswith("db status: no store at")
    assert not db.exists()


def test_a_file_newer_than_this_tinymemory_is_a_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "future.db"
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    error, _ = run(capsys, "db", "upgrade", "--db", str(db), code=2)
    assert error["error"] == "conflict" and "is newer than this tinymemory" in error["message"]
    assert file_version(db) == SCHEMA_VERSION + 1
    status, _ = run(capsys, "db", "status", "--db", str(db))
    assert status["schema_version"] == SCHEMA_VERSION + 1 and status["schema_state"] == "ahead"
    assert status["items"] is None


def test_the_store_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "env.db"
    monkeypatch.setenv("TINYMEMORY_DB", str(db))
    done, _ = run(capsys, "db", "upgrade")
    assert done["store"] == str(db) and db.is_file()
    # an empty variable is no store named: the default file under $TINYMEMORY_HOME
    monkeypatch.setenv("TINYMEMORY_DB", "")
    monkeypatch.setenv("TINYMEMORY_HOME", str(tmp_path / "home"))
    done, _ = run(capsys, "db", "upgrade")
    assert done["store"] == str(tmp_path / "home" / "memory.db")


def test_bad_targets_are_refused_without_echoing_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    error, _ = run(capsys, "db", "status", "--db", "host=db.example password=s3cret", code=2)
    assert error["error"] == "invalid_request" and "libpq" in error["message"]
    error, _ = run(capsys, "db", "upgrade", "--db", "mysql://root:s3cret@db.example/x", code=2)
    assert "scheme `mysql://`" in error["message"] and "s3cret" not in error["message"]


# -- PostgreSQL (a throwaway server, a fresh database per test; see tests/postgres/server.py) -----------


def with_password(dsn: str, password: str) -> str:
    """The test role's URL with a password in it (the test server trusts local sockets, so it is
    accepted and ignored): what a deployment's URL looks like, to check it is never shown."""
    return dsn.replace("postgresql://tinymemory@", f"postgresql://tinymemory:{password}@", 1)


def test_postgres_upgrade_then_status(pg_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tinymemory.engines.postgres.schema import SCHEMA_VERSION as PG_VERSION

    url = with_password(pg_dsn, "s3cret")
    shown = redact(url)
    assert "s3cret" not in shown and ":***@" in shown

    fresh, err = run(capsys, "db", "status", "--db", url)
    assert (fresh["engine"], fresh["store"], fresh["schema_version"]) == ("postgres", shown, 0)
    assert fresh["schema_state"] == "behind" and fresh["items"] is None
    done, err = run(capsys, "db", "upgrade", "--db", url)
    assert done == {
        "store": shown,
        "engine": "postgres",
        "schema_before": 0,
        "schema_after": PG_VERSION,
        "summary": f"schema 0 -> {PG_VERSION}",
    }
    assert f"schema 0 -> {PG_VERSION}" in err and "s3cret" not in err
    again, _ = run(capsys, "db", "upgrade", "--db", url)
    assert again["summary"] == f"schema {PG_VERSION} -> {PG_VERSION}"

    with Memory(pg_dsn, namespace="team:acme", embedder=None) as mem:
        mem.store("The release train leaves on Thursdays")
        mem.store("Dana reviews the changelog")
    status, err = run(capsys, "db", "status", "--db", url)
    assert status["schema_version"] == PG_VERSION and status["schema_state"] == "current"
    assert status["items"] == 2 and status["engine_version"].endswith(f"+schema.{PG_VERSION}")
    assert "s3cret" not in json.dumps(status) + err


def test_postgres_status_of_an_unreachable_server_hides_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "postgresql://alice:s3cret@127.0.0.1:1/mem?connect_timeout=2"
    error, err = run(capsys, "db", "status", "--db", url, code=2)
    assert error["error"] == "unavailable" and error["message"].startswith("db status: ")
    assert "s3cret" not in err


def test_postgres_upgrade_builds_the_embedders_vector_index(
    pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The owner's upgrade makes the index the service's role may not create; --no-embedder skips it."""
    import psycopg

    from tinymemory.engines.postgres.schema import vector_index_name
    from tinymemory.retrieval.embedders import default_embedder

    embedder = default_embedder()
    if embedder is None:
        pytest.skip("no default embedder here")
    name = vector_index_name(embedder.name, embedder.dim)

    def index_exists() -> bool:
        with psycopg.connect(pg_dsn) as conn:
            row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
            return bool(row and row[0])

    run(capsys, "db", "upgrade", "--db", pg_dsn, "--no-embedder")
    assert not index_exists()
    run(capsys, "db", "upgrade", "--db", pg_dsn)
    assert index_exists()
