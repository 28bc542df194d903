"""`tinymemory db index` over real SQLite files: it builds the HNSW graph in the foreground, a second run
adds only new rows, `--force` starts over, the stores it cannot index are refused, and an engine opened
afterwards reads through the graph from its first large read."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("usearch")

from test_sqlite_support import note
from tinymemory.api import FetchMode, FetchRequest
from tinymemory.cli import main
from tinymemory.engines.sqlite import SqliteEngine, ann, search
from tinymemory.engines.sqlite.ann_reads import BuildReport

ITEMS = 600


@pytest.fixture(autouse=True)
def default_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default embedder, whatever the caller's environment chose."""
    monkeypatch.delenv("TINYMEMORY_EMBEDDER", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> tuple[Any, str]:
    """The command's JSON (stdout, or the error on stderr) and its stderr."""
    assert main(list(argv)) == code
    out, err = capsys.readouterr()
    if code == 0:
        return json.loads(out), err
    return json.loads(err.strip().splitlines()[-1]), err


def fill(path: Path, start: int, count: int, embedder: str | None = "default") -> None:
    """Items stored through a real engine (the CLI runs its own event loop, so the tests are sync)."""

    async def go() -> None:
        async with SqliteEngine(path, embedder=embedder) as engine:
            await engine.store_many(
                [note(f"memory {i} on topic {i % 37}") for i in range(start, start + count)]
            )

    asyncio.run(go())


def graph_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.hnsw-*"))


def test_builds_then_is_up_to_date_then_extends_and_force_rebuilds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    fill(db, 0, ITEMS)
    first, err = run(capsys, "db", "index", "--db", str(db))
    assert (first["rows"], first["added"], first["rebuilt"]) == (ITEMS, ITEMS, True)
    assert graph_files(db) == [Path(first["file"])]
    assert first["summary"].startswith(f"built: {ITEMS} rows in ")
    # below the threshold it still builds, and says when reads will start using it
    assert first["threshold"] == ann.ANN_MIN_ROWS and first["used_by_reads"] is False
    assert f"{ann.ANN_MIN_ROWS:,} vectors" in first["note"] and f"{ann.ANN_MIN_ROWS:,} vectors" in err

    again, _ = run(capsys, "db", "index", "--db", str(db))
    assert (again["rows"], again["added"], again["rebuilt"]) == (ITEMS, 0, False)
    assert again["summary"].startswith("up to date: ")

    fill(db, ITEMS, 10)
    grown, _ = run(capsys, "db", "index", "--db", str(db))
    assert (grown["rows"], grown["added"], grown["rebuilt"]) == (ITEMS + 10, 10, False)

    forced, _ = run(capsys, "db", "index", "--db", str(db), "--force")
    assert (forced["rows"], forced["added"], forced["rebuilt"]) == (ITEMS + 10, ITEMS + 10, True)
    assert graph_files(db) == [Path(forced["file"])]


def test_a_new_engine_walks_the_prepared_graph_from_its_first_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 200)
    db = tmp_path / "m.db"
    fill(db, 0, ITEMS)
    built, err = run(capsys, "db", "index", "--db", str(db))
    assert built["used_by_reads"] is True and "note" not in built and "will not use" not in err

    async def first_read() -> tuple[search.Plan | None, int]:
        async with SqliteEngine(db) as engine:
            got = await engine.fetch(FetchRequest("memory 7 on topic 7", mode=FetchMode.SEMANTIC, limit=5))
            return engine.last_semantic_plan, len(got.hits)

    assert asyncio.run(first_read()) == (search.Plan.HNSW, 5)  # no background build was needed


def test_one_shot_commands_start_no_background_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command answers and exits, so it never starts a build of a large file that it would only
    stop at exit: its large read scans (or walks a graph `db index` saved)."""
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 200)
    db = tmp_path / "m.db"
    fill(db, 0, ITEMS)
    started: list[str] = []
    start = threading.Thread.start

    def spy(thread: threading.Thread) -> None:
        started.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", spy)
    for argv in (["fetch", "memory 7 on topic 7", "--mode", "semantic"], ["recall", "memory 7"]):
        out, _ = run(capsys, *argv, "--db", str(db))
        assert out
    assert started and "tinymemory-hnsw" not in started  # the command's own threads did start
    assert graph_files(db) == []


def test_the_engine_reports_progress_chunk_by_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "BUILD_CHUNK", 256)
    db = tmp_path / "m.db"
    fill(db, 0, ITEMS)
    seen: list[tuple[int, int]] = []

    async def build() -> BuildReport:
        async with SqliteEngine(db) as engine:
            return await engine.build_index(progress=lambda done, total: seen.append((done, total)))

    report = asyncio.run(build())
    assert report.rows == ITEMS and report.path is not None and report.path.exists()
    assert seen == [(0, ITEMS), (256, ITEMS), (512, ITEMS), (ITEMS, ITEMS)]


def test_a_store_without_vectors_writes_no_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    fill(db, 0, 20, embedder=None)  # filled lexical-only: nothing to index yet
    out, _ = run(capsys, "db", "index", "--db", str(db))
    assert out["file"] is None and out["rows"] == 0 and out["summary"].startswith("nothing to index")
    assert graph_files(db) == []


def test_a_lexical_only_store_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "m.db"
    fill(db, 0, 20)
    monkeypatch.setenv("TINYMEMORY_EMBEDDER", "none")
    error, _ = run(capsys, "db", "index", "--db", str(db), code=2)
    assert error["error"] == "unsupported"
    assert error["message"].startswith("db index: ") and "lexical-only" in error["message"]
    assert graph_files(db) == []


@pytest.mark.parametrize(
    ("target", "kind", "words"),
    [
        (":memory:", "invalid_request", "no file"),
        ("postgresql://someone@localhost:1/none", "unsupported", "pgvector"),
    ],
)
def test_stores_without_a_graph_file_are_refused(
    capsys: pytest.CaptureFixture[str], target: str, kind: str, words: str
) -> None:
    error, _ = run(capsys, "db", "index", "--db", target, code=2)
    assert error["error"] == kind
    assert error["message"].startswith("db index: ") and words in error["message"]


def test_a_missing_file_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "none.db"
    error, _ = run(capsys, "db", "index", "--db", str(db), code=2)
    assert error["error"] == "not_found" and error["message"].startswith("db index: no store at")
    assert not db.exists()
