"""A command line argparse cannot read (a missing argument, an unknown flag or command, a value of the
wrong type or out of its choices) is the README's refusal: one JSON line on stderr naming the command,
exit 2, no usage text. `--help` stays the human text on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def tinymemory(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tinymemory", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    ("args", "command", "says"),
    [
        (("fetch",), "fetch", "query"),
        (("fetch", "x", "--limit", "ten"), "fetch", "--limit"),
        (("fetch", "x", "--mode", "psychic"), "fetch", "--mode"),
        (("list", "--colour", "red"), "list", "--colour"),
        (("nosuch",), "tinymemory", "nosuch"),
        ((), "tinymemory", "COMMAND"),
        (("db",), "db", "ACTION"),
        (("db", "status", "--bogus"), "db status", "--bogus"),
    ],
)
def test_an_argument_error_is_one_json_line(
    tmp_path: Path, args: tuple[str, ...], command: str, says: str
) -> None:
    proc = tinymemory(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    error = json.loads(lines[0])
    assert error["error"] == "invalid_request"
    assert error["message"].startswith(f"{command}: ")
    assert says in error["message"]
    assert "usage:" not in proc.stderr


def test_help_stays_human() -> None:
    proc = tinymemory("fetch", "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: tinymemory fetch")
