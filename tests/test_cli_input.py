"""Bad input at the command line: a JSON error naming the command and the argument, a non-zero exit, nothing
written, and never a Python traceback (real subprocesses, real SQLite files)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tinymemory.api import ListRequest
from tinymemory.engines.sqlite import SqliteEngine

Arg = str | bytes


def tinymemory(
    *args: Arg, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    return subprocess.run(
        [sys.executable, "-m", "tinymemory", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**environ, **(env or {})},
        check=False,
    )


def json_error(proc: subprocess.CompletedProcess[bytes], code: int = 2) -> dict[str, Any]:
    stderr = proc.stderr.decode("utf-8", "backslashreplace")
    assert proc.returncode == code, (proc.returncode, proc.stdout, stderr)
    assert "Traceback" not in stderr, stderr
    assert proc.stdout == b""
    error: dict[str, Any] = json.loads(stderr.strip().splitlines()[-1])
    assert set(error) == {"error", "message"}
    return error


def stored_texts(db: Path) -> list[str]:
    if not db.exists():
        return []

    async def read() -> list[str]:
        async with SqliteEngine(db, embedder=None) as engine:
            return [i.text for i in (await engine.list(ListRequest(limit=100))).items]

    return asyncio.run(read())


NOT_UTF8 = b"\xff"
BROKEN_PAIR = b"\xc3\x28"  # a lead byte followed by a byte that cannot continue it


@pytest.mark.parametrize(
    ("args", "command", "argument"),
    [
        ((b"store", NOT_UTF8), "store", "text"),
        ((b"store", b"ok", b"--tag", BROKEN_PAIR), "store", "--tag"),
        ((b"store", b"ok", b"--title", NOT_UTF8), "store", "--title"),
        ((b"store", b"ok", b"--about", b"preference:" + NOT_UTF8), "store", "--about"),
        ((b"store", b"ok", b"--namespace", b"team:" + NOT_UTF8), "store", "--namespace"),
        ((b"fetch", b"coffee " + NOT_UTF8), "fetch", "query"),
        ((b"recall", BROKEN_PAIR), "recall", "question"),
        ((b"list", b"--thread", NOT_UTF8), "list", "--thread"),
        ((b"get", b"m_" + NOT_UTF8), "get", "ids"),
        ((b"explore", b"tag", b"--tag", NOT_UTF8), "explore", "--tag"),
        ((b"forget", b"--tag", NOT_UTF8), "forget", "--tag"),
        ((b"purge", b"--reach", NOT_UTF8), "purge", "--reach"),
        ((b"info", b"--namespace", NOT_UTF8), "info", "--namespace"),
        ((b"ingest", b".", b"--source", NOT_UTF8), "ingest", "--source"),
        ((b"mcp", b"--place", NOT_UTF8), "mcp", "--place"),
    ],
)
def test_an_argument_that_is_not_utf8_is_a_json_error(
    tmp_path: Path, args: tuple[bytes, ...], command: str, argument: str
) -> None:
    db = tmp_path / "cli.db"
    proc = tinymemory(*args, b"--db", str(db).encode(), b"--no-embedder")
    error = json_error(proc)
    assert error["error"] == "invalid_request"
    assert error["message"] == f"{command}: argument `{argument}` is not valid UTF-8"
    assert stored_texts(db) == []


def test_stdin_that_is_not_utf8_is_a_json_error(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    proc = tinymemory("store", "-", "--db", str(db), "--no-embedder", stdin=b"Dana drinks " + NOT_UTF8)
    error = json_error(proc)
    assert error == {
        "error": "invalid_request",
        "message": "store: argument `text` (read from stdin) is not valid UTF-8",
    }
    assert stored_texts(db) == []


def test_stdin_in_utf8_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    proc = tinymemory("store", "-", "--db", str(db), "--no-embedder", stdin="Dana drinks café\n".encode())
    assert proc.returncode == 0, proc.stderr
    assert stored_texts(db) == ["Dana drinks café\n"]


def test_a_db_path_that_is_not_utf8_is_still_a_path(tmp_path: Path) -> None:
    """File names are bytes on POSIX: a path is the one argument a non-UTF-8 byte may legitimately be in."""
    db = os.fsencode(tmp_path) + b"/" + NOT_UTF8 + b".db"
    proc = tinymemory("store", "Dana drinks tea", b"--db", db, "--no-embedder")
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(db)


@pytest.mark.parametrize("about", ["nocolon", ":key", "kind:", ":"])
def test_about_without_kind_and_key_is_a_json_error(tmp_path: Path, about: str) -> None:
    db = tmp_path / "cli.db"
    proc = tinymemory("store", "Dana drinks tea", "--about", about, "--db", str(db), "--no-embedder")
    error = json_error(proc)
    assert error["error"] == "invalid_request"
    assert error["message"].startswith("store: `--about` expects KIND:KEY")
    assert stored_texts(db) == []


def test_about_with_kind_and_key_supersedes(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    for text in ("Dana drinks tea", "Dana drinks coffee"):
        proc = tinymemory("store", text, "--about", "preference:dana.drink", "--db", str(db), "--no-embedder")
        assert proc.returncode == 0, proc.stderr
    assert stored_texts(db) == ["Dana drinks coffee"]


@pytest.mark.parametrize(
    ("flag", "instant"),
    [("--after", "0001-01-01T00:00:00+23:59"), ("--as-of", "9999-12-31T23:59:59-23:59")],
)
def test_an_instant_out_of_range_is_a_json_error(tmp_path: Path, flag: str, instant: str) -> None:
    db = tmp_path / "cli.db"
    proc = tinymemory("list", flag, instant, "--db", str(db), "--no-embedder")
    error = json_error(proc)
    assert error["error"] == "invalid_request"
    assert error["message"].startswith(f"list: `{flag}` ")


BOOM_COMMAND = textwrap.dedent(
    '''
    """A command that fails the way a defect would: an exception that is not a TinyMemoryError."""
    import argparse


    def boom(args: argparse.Namespace) -> int:
        raise RuntimeError("something unexpected")


    def register(sub) -> None:
        p = sub.add_parser("boom", help="fail on purpose", description="fail on purpose")
        p.set_defaults(func=boom)
    '''
)
RUN_WITH_BOOM = (
    "import sys, tinymemory.cli as cli; cli.COMMAND_MODULES += ('boom_cmd',); sys.exit(cli.main(['boom']))"
)


def test_an_unexpected_exception_is_a_json_error_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "boom_cmd.py").write_text(BOOM_COMMAND, encoding="utf-8")
    argv = [sys.executable, "-c", RUN_WITH_BOOM]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env["PYTHONPATH"] = str(tmp_path)
    quiet = subprocess.run(argv, capture_output=True, timeout=60, env=env, check=False)
    error = json_error(quiet, code=1)
    assert error["error"] == "internal"
    assert error["message"].startswith("boom: RuntimeError: something unexpected")
    assert "TINYMEMORY_DEBUG=1" in error["message"]

    debug = subprocess.run(
        argv, capture_output=True, timeout=60, env={**env, "TINYMEMORY_DEBUG": "1"}, check=False
    )
    assert debug.returncode == 1
    stderr = debug.stderr.decode()
    assert "Traceback (most recent call last)" in stderr and "RuntimeError: something unexpected" in stderr
    assert json.loads(stderr.strip().splitlines()[-1])["error"] == "internal"


def test_a_reader_that_went_away_gets_no_traceback(tmp_path: Path) -> None:
    """`tinymemory list | head -0`: the pipe is closed before the command writes."""
    stored = tinymemory("store", "Dana drinks tea", "--db", str(tmp_path / "cli.db"), "--no-embedder")
    assert stored.returncode == 0, stored.stderr
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tinymemory", "list", "--db", str(tmp_path / "cli.db"), "--no-embedder"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode != 0
    assert proc.stderr == b""
