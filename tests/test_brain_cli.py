"""`tinymemory ingest PATH --source NAME` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tinymemory.cli import main


def test_ingest_command_is_replay_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha document.\n")
    (docs / "b.txt").write_text("Plain beta notes.\n")
    db = str(tmp_path / "m.db")
    args = ["ingest", str(docs), "--source", "handbook", "--db", db, "--namespace", "team:acme"]
    assert main([*args, "--no-embedder", "--quiet"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["namespace"] == "team:acme/memory:brain/source:handbook"
    assert sorted(first["stored"]) == ["a.md", "b.txt"] and first["chunks"] == 2
    assert main([*args, "--no-embedder", "--quiet"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["stored"] == [] and sorted(second["unchanged"]) == ["a.md", "b.txt"]


def test_ingest_command_refuses_a_bad_source_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ingest", str(tmp_path), "--source", "bad name", "--db", str(tmp_path / "m.db"), "--quiet"])
    assert code == 2
    assert "bad segment" in capsys.readouterr().err


def test_progress_bar_keeps_stdout_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha document.\n")
    assert main(["ingest", str(docs), "--source", "s", "--db", str(tmp_path / "m.db"), "--no-embedder"]) == 0
    assert json.loads(capsys.readouterr().out)["stored"] == ["a.md"]
