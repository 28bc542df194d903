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


def test_a_folder_ingest_names_the_files_it_does_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    docs = tmp_path / "docs"
    (docs / "sheets").mkdir(parents=True)
    (docs / "a.md").write_text("# Alpha\n\nThe alpha document.\n")
    (docs / "budget.xlsx").write_bytes(b"PK\x03\x04 not a document brain reads")
    (docs / "sheets" / "plan.docx").write_bytes(b"PK\x03\x04")
    (docs / "Makefile").write_text("all:\n")
    (docs / ".hidden.xlsx").write_bytes(b"hidden names are skipped silently, as before")
    db = str(tmp_path / "m.db")
    args = ["ingest", str(docs), "--source", "handbook", "--db", db, "--no-embedder", "--quiet"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stored"] == ["a.md"] and report["failed"] == []
    assert report["unsupported"] == ["Makefile", "budget.xlsx", "sheets/plan.docx"]
    [warning] = [r.getMessage() for r in caplog.records if "not read" in r.getMessage()]
    assert "Makefile, budget.xlsx, sheets/plan.docx" in warning  # on stderr, beside the JSON on stdout
    assert ".hidden" not in warning


async def test_the_library_report_lists_unsupported_files(tmp_path: Path) -> None:
    from tinymemory.engines.sqlite import SqliteEngine
    from tinymemory.lifecycle import Brain

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Plain notes.\n")
    (docs / "photo.jpeg").write_bytes(b"\xff\xd8\xff")
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        report = await Brain(engine).ingest(docs, source="s")
    assert report.stored == ["a.txt"] and report.unsupported == ["photo.jpeg"]
