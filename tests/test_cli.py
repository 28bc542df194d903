"""The `tinymemory` command, run as a real subprocess against a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

WRITER = "team:acme/agent:writer"
REVIEWER = "team:acme/agent:reviewer"


def run(*args: str, db: Path | None = None, env: dict[str, str] | None = None, ok: bool = True) -> Any:
    argv = [sys.executable, "-m", "tinymemory", *args]
    if db is not None:
        argv += ["--db", str(db), "--no-embedder"]
    proc = subprocess.run(
        argv, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}
    )
    if ok:
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def test_store_fetch_recall_list_get_explore_forget_purge(db: Path) -> None:
    first = run("store", "Dana drinks flat whites", "--namespace", WRITER, "--tag", "preference", db=db)
    assert first["replayed"] is False and first["id"].startswith("m_")
    again = run("store", "Dana drinks flat whites", "--namespace", WRITER, db=db)
    assert again == {"id": first["id"], "replayed": True, "superseded": []}
    doc = run(
        "store",
        "Quarterly report due in June",
        "--kind",
        "document",
        "--title",
        "Plan",
        "--namespace",
        "team:acme",
        db=db,
    )

    hits = run("fetch", "flat whites", "--namespace", WRITER, db=db)["hits"]
    assert [h["item"]["id"] for h in hits] == [first["id"]]
    assert hits[0]["item"]["meta"]["namespace"] == WRITER  # the host-side view shows the namespace
    assert "why" not in hits[0]
    explained = run("fetch", "flat whites", "--namespace", WRITER, "--explain", db=db)["hits"]
    assert [h["item"]["id"] for h in explained] == [first["id"]]
    why = explained[0]["why"]
    assert why["rank"] == 1 and why["score"] == explained[0]["score"] and why["lexical_rank"] == 1
    assert isinstance(why["features"], dict) and "cosine" in why["features"]

    answer = run("recall", "what does Dana drink?", "--namespace", WRITER, db=db)
    assert "flat whites" in answer["answer"]
    assert answer["citations"][0]["id"] == first["id"]

    listed = run("list", "--namespace", WRITER, "--limit", "1", db=db)
    assert len(listed["items"]) == 1 and "next_cursor" in listed
    page2 = run("list", "--namespace", WRITER, "--limit", "1", "--cursor", listed["next_cursor"], db=db)
    assert {listed["items"][0]["id"], page2["items"][0]["id"]} == {first["id"], doc["id"]}

    got = run("get", first["id"], doc["id"], "--namespace", WRITER, db=db)
    assert {i["id"] for i in got["items"]} == {first["id"], doc["id"]}

    tags = run("explore", "tag", "--reach", "subtree(team:acme)", db=db)
    assert tags["buckets"] == [{"value": "preference", "count": 1}] and tags["total"] == 2

    forgotten = run("forget", first["id"], "--namespace", WRITER, db=db)
    assert forgotten["forgotten"] == [first["id"]]
    assert run("get", first["id"], "--namespace", WRITER, db=db)["missing"] == [first["id"]]
    assert run("purge", "--namespace", WRITER, db=db) == {"purged": 1}
    info = run("info", "--reach", "subtree(team:acme)", db=db)
    assert info["items"] == 1 and info["engine"]["name"] == "sqlite"


def test_a_sibling_namespace_sees_nothing(db: Path) -> None:
    secret = run("store", "reviewer-only legal note", "--namespace", REVIEWER, db=db)
    assert run("fetch", "legal note", "--namespace", WRITER, db=db)["hits"] == []
    assert run("get", secret["id"], "--namespace", WRITER, db=db)["missing"] == [secret["id"]]
    skipped = run("forget", secret["id"], "--namespace", WRITER, db=db)
    assert skipped == {"forgotten": [], "skipped": [secret["id"]]}
    assert run("get", secret["id"], "--namespace", REVIEWER, db=db)["items"][0]["id"] == secret["id"]


def test_forget_by_filter_and_supersession(db: Path) -> None:
    old = run("store", "Dana drinks tea", "--about", "preference:drink", "--namespace", WRITER, db=db)
    new = run("store", "Dana drinks coffee", "--about", "preference:drink", "--namespace", WRITER, db=db)
    assert new["superseded"] == [old["id"]]
    assert [i["id"] for i in run("list", "--namespace", WRITER, db=db)["items"]] == [new["id"]]
    gone = run("forget", "--namespace", WRITER, "--kind", "learning", db=db)
    assert gone["forgotten"] == [new["id"]]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("store", "", "--namespace", WRITER), "text"),
        (("store", "x", "--namespace", "team:"), "--namespace"),
        (("fetch", "x", "--limit", "0"), "limit"),
        (("list", "--after", "yesterday"), "--after"),
        (("fetch", "x", "--reach", "subtree(bad ns)"), "--reach"),
        (("forget",), "filter"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(db: Path, args: tuple[str, ...], field: str) -> None:
    run("db", "upgrade", db=db)  # an empty store (a read on a missing one is refused before its input)
    err = run(*args, db=db, ok=False)
    assert err["error"] == "invalid_request"
    assert f"`{field}`" in err["message"] or field in err["message"]
    assert err["message"] == err["message"].lower() or "`" in err["message"]
    assert run("list", db=db)["items"] == []


def test_demo_runs_lexical_only(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tinymemory", "demo", "--no-embedder", "--db", str(tmp_path / "demo.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "replayed=True" in proc.stdout
    assert "missing=['m_" in proc.stdout  # the sibling's note stays out of reach
    assert "fixed by the host" in proc.stdout


def test_embedder_info_and_build_skip_when_present(tmp_path: Path) -> None:
    env = {"TINYMEMORY_HOME": str(tmp_path)}
    info = run("embedder", "info", env=env)
    assert info["static_table_source"] == "shipped" and not info["static_table"].startswith(str(tmp_path))
    shipped = run("embedder", "build", env=env)
    assert shipped["built"] is False and "the package ships this table" in shipped["reason"]
    other = run("embedder", "info", "--dim", "8", env=env)
    assert other["static_table_source"] == "missing" and other["static_table"].startswith(str(tmp_path))
    Path(other["static_table"]).write_bytes(b"placeholder")
    built = run("embedder", "build", "--dim", "8", env=env)
    assert built["built"] is False and built["reason"].startswith("already built")


def test_reads_see_the_whole_file_unless_narrowed(db: Path) -> None:
    """The person at the command line owns the file: with no --namespace or --reach, reads see it all."""
    writer = run("store", "Dana drinks flat whites", "--namespace", WRITER, db=db)["id"]
    reviewer = run("store", "the legal note is pending", "--namespace", REVIEWER, db=db)["id"]
    team = run("store", "the report is due in June", "--namespace", "team:acme", db=db)["id"]
    everything = {writer, reviewer, team}

    assert {i["id"] for i in run("list", db=db)["items"]} == everything
    assert [h["item"]["id"] for h in run("fetch", "flat whites", db=db)["hits"]] == [writer]
    assert run("recall", "what does Dana drink?", db=db)["citations"][0]["id"] == writer
    assert {i["id"] for i in run("get", writer, reviewer, team, db=db)["items"]} == everything
    assert run("explore", "kind", db=db)["total"] == 3
    info = run("info", db=db)
    assert info["items"] == 3 and info["reach"] == "all" and info["namespace"] == ""

    # --namespace narrows reads to that node and its ancestors; --reach narrows (or widens) explicitly
    mine = {i["id"] for i in run("list", "--namespace", WRITER, db=db)["items"]}
    assert mine == {writer, team}
    assert [i["id"] for i in run("list", "--reach", "exact(team:acme)", db=db)["items"]] == [team]
    assert {
        i["id"] for i in run("list", "--namespace", WRITER, "--reach", "all", db=db)["items"]
    } == everything
    # ... and the documents ingested along that lineage (the brain under each node), as Memory reads
    assert run("info", "--namespace", WRITER, db=db)["reach"] == (
        f"inherit({WRITER})+subtree({WRITER}/memory:brain)+subtree(team:acme/memory:brain)"
        "+subtree(memory:brain)"
    )

    # forget and purge reach the whole file too; forget with no ids still needs a filter
    assert run("forget", reviewer, db=db)["forgotten"] == [reviewer]
    assert run("purge", db=db) == {"purged": 1}
    assert run("forget", db=db, ok=False)["error"] == "invalid_request"
    assert {i["id"] for i in run("list", db=db)["items"]} == {writer, team}


def test_a_namespace_reads_the_documents_ingested_along_its_lineage(db: Path, tmp_path: Path) -> None:
    """`ingest --namespace team:acme` then `fetch --namespace <an agent under it>` finds the document;
    a sibling team's namespace does not."""
    doc = tmp_path / "handbook.md"
    doc.write_text("# Expenses\n\nTaxi receipts are filed within thirty days.\n", encoding="utf-8")
    run("ingest", str(doc), "--source", "handbook", "--namespace", "team:acme", "--quiet", db=db)
    found = run("fetch", "taxi receipts", "--namespace", WRITER, db=db)["hits"]
    assert found and "thirty days" in found[0]["item"]["text"]
    assert run("fetch", "taxi receipts", "--namespace", "team:other/agent:x", db=db)["hits"] == []
