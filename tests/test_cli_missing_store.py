"""A command that only reads (or removes) never creates a store: on a missing one it is an error naming
the path, and no folder or file appears. A write (`store`) creates the store, folders included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tinymemory.cli import main

READS = (
    ("fetch", "x", "--no-embedder"),
    ("recall", "x", "--no-embedder"),
    ("list", "--no-embedder"),
    ("get", "m_1", "--no-embedder"),
    ("explore", "kind", "--no-embedder"),
    ("info", "--no-embedder"),
    ("forget", "m_1", "--no-embedder"),
    ("purge", "--no-embedder"),
    ("db", "status"),
    ("agents", "list", "--workspace", "acme"),
    ("gate", "status", "--workspace", "acme"),
    ("gate", "run"),
    ("agents", "delete", "--workspace", "acme", "support"),
    ("export",),
)


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    found: dict[str, Any] = json.loads(err.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("command", READS, ids=lambda c: " ".join(c[:2]))
def test_a_read_on_a_missing_store_names_it_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    db = tmp_path / "no" / "such" / "x.db"
    error = error_of(capsys, [*command, "--db", str(db)])
    assert error["error"] == "not_found"
    op = " ".join(command[:2]) if command[0] in ("db", "agents", "gate") else command[0]
    assert error["message"].startswith(f"{op}: no store at")
    assert str(db) in error["message"]
    assert not (tmp_path / "no").exists()


def test_a_read_on_a_missing_default_store_creates_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TINYMEMORY_HOME", str(home))
    monkeypatch.delenv("TINYMEMORY_DB", raising=False)
    error = error_of(capsys, ["list", "--no-embedder"])
    assert error["error"] == "not_found" and str(home / "memory.db") in error["message"]
    assert not home.exists()


def test_a_write_creates_the_store_and_its_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new" / "dir" / "x.db"
    assert main(["store", "Dana drinks flat whites", "--db", str(db), "--no-embedder"]) == 0
    assert json.loads(capsys.readouterr().out)["replayed"] is False
    assert db.is_file()
    assert main(["list", "--db", str(db), "--no-embedder"]) == 0
    assert [i["text"] for i in json.loads(capsys.readouterr().out)["items"]] == ["Dana drinks flat whites"]
