"""Concurrency of the SQLite engine: reads on their own connections, group commit, durability setting.

Real files throughout. The writer thread is held inside an open transaction (or simply kept busy) with
a threading.Event, so what would overlap by chance is made to overlap for sure; nothing here asserts a
timing.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    Unavailable,
)
from tinymemory.engines.sqlite import SqliteEngine, db

WAIT_S = 60  # a generous ceiling so a broken engine fails instead of hanging; never a timing check


def _engine(path: Path, **kw: object) -> SqliteEngine:
    kw.setdefault("embedder", None)
    return SqliteEngine(path, **kw)  # type: ignore[arg-type]


async def _hold_writer(
    engine: SqliteEngine, in_transaction: bool
) -> tuple[threading.Event, asyncio.Future[None]]:
    """Keep the writer thread busy (inside an open write transaction if asked) until the event is set."""
    release, entered = threading.Event(), threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        if in_transaction:
            db.begin_write(conn)
        entered.set()
        release.wait(WAIT_S)
        if in_transaction:
            conn.execute("ROLLBACK")

    held = asyncio.ensure_future(engine.storage._run("test", hold))
    await asyncio.to_thread(entered.wait, WAIT_S)
    return release, held


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(WAIT_S * 100):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


def _ids_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as raw:
        return {str(r[0]) for r in raw.execute("SELECT id FROM items")}


# -- reads beside writes --------------------------------------------------------------------------------


async def test_a_read_is_answered_while_a_write_transaction_is_open(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with _engine(path) as engine:
        first = await engine.store(note("the kettle is blue"))
        release, held = await _hold_writer(engine, in_transaction=True)
        try:
            got = await asyncio.wait_for(engine.get(GetRequest(ids=(first.id,))), WAIT_S)
            listed = await asyncio.wait_for(engine.list(ListRequest()), WAIT_S)
            fetched = await asyncio.wait_for(engine.fetch(FetchRequest("kettle")), WAIT_S)
        finally:
            release.set()
            await held
        assert [i.id for i in got.items] == [first.id]
        assert [i.id for i in listed.items] == [first.id]
        assert [h.item.id for h in fetched.hits] == [first.id]


async def test_readers_see_whole_batches_while_writers_commit(tmp_path: Path) -> None:
    """Each read sees one snapshot: a store_many batch is all there or not there at all."""
    path = tmp_path / "m.db"
    batch, batches = 7, 30
    async with _engine(path, embedder=HashEmbedder(), readers=3) as engine:

        async def write() -> None:
            for b in range(batches):
                await engine.store_many(
                    [note(f"batch{b} entry {k} about apples", tags=(f"b{b}",)) for k in range(batch)]
                )

        def whole(texts: list[str]) -> None:
            counts: dict[str, int] = {}
            for text in texts:
                counts[text.split()[0]] = counts.get(text.split()[0], 0) + 1
            assert all(n == batch for n in counts.values()), counts

        async def read() -> int:
            seen = 0
            while seen < batch * batches:
                listed = await engine.list(ListRequest(limit=1000))
                whole([i.text for i in listed.items])
                if listed.items:
                    got = await engine.get(GetRequest(ids=tuple(i.id for i in listed.items)))
                    assert len(got.items) == len(listed.items)  # nothing listed has gone
                hits = await engine.fetch(FetchRequest("apples", mode=FetchMode.HYBRID, limit=50))
                assert len({h.item.id for h in hits.hits}) == len(hits.hits)  # no hit twice
                seen = len(listed.items)
                await asyncio.sleep(0)
            return seen

        results = await asyncio.wait_for(asyncio.gather(write(), read(), read(), read()), WAIT_S * 2)
        assert results[1:] == [batch * batches] * 3


async def test_reads_from_another_process_s_writes_are_fresh(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with _engine(path) as reader, _engine(path) as writer:
        assert (await reader.list(ListRequest())).items == ()
        stored = await writer.store(note("written by the other engine"))
        assert [i.id for i in (await reader.list(ListRequest())).items] == [stored.id]


# -- group commit ---------------------------------------------------------------------------------------


async def test_stores_queued_behind_a_commit_share_one_transaction_and_survive_reopening(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    async with _engine(path, embedder=HashEmbedder()) as engine:
        release, held = await _hold_writer(engine, in_transaction=False)
        singles = [asyncio.ensure_future(engine.store(note(f"single store {i}"))) for i in range(12)]
        many = asyncio.ensure_future(engine.store_many([note(f"many store {i}") for i in range(5)]))
        await _until(lambda: len(engine.storage._commits._queue) == 13)
        release.set()
        await held
        results = await asyncio.wait_for(asyncio.gather(*singles, many), WAIT_S)
        assert engine.storage._commits.groups == 1  # the first flush took all thirteen callers
    ids = [r.id for r in results[:-1]] + [r.id for r in results[-1]]  # type: ignore[union-attr]
    assert len(set(ids)) == 17
    assert _ids_in(path) == set(ids)
    async with _engine(path, embedder=HashEmbedder()) as again:
        hits = await again.fetch(FetchRequest("single store", mode=FetchMode.SEMANTIC, limit=20))
        assert {h.item.id for h in hits.hits} >= {r.id for r in results[:-1]}  # type: ignore[union-attr]


def _poison(path: Path, *, at_commit: bool) -> None:
    """A real failure for items whose text holds 'poison': at once (a trigger aborts the insert), or
    only at COMMIT (a deferred foreign key left dangling, which fails the whole transaction)."""
    with sqlite3.connect(path) as raw:
        if at_commit:
            raw.executescript(
                """
                CREATE TABLE poison_parent (id INTEGER PRIMARY KEY);
                CREATE TABLE poison_child (
                    ref INTEGER REFERENCES poison_parent (id) DEFERRABLE INITIALLY DEFERRED);
                CREATE TRIGGER poison_late AFTER INSERT ON items WHEN NEW.text LIKE '%poison%'
                BEGIN INSERT INTO poison_child (ref) VALUES (42); END;
                """
            )
        else:
            raw.execute(
                "CREATE TRIGGER poison_now BEFORE INSERT ON items WHEN NEW.text LIKE '%poison%'"
                " BEGIN SELECT RAISE(ABORT, 'poisoned item'); END"
            )


@pytest.mark.parametrize("at_commit", [False, True], ids=["fails-in-its-savepoint", "fails-the-commit"])
async def test_a_failing_caller_in_a_group_fails_alone(tmp_path: Path, at_commit: bool) -> None:
    path = tmp_path / "m.db"
    async with _engine(path) as engine:
        await engine.store(note("opened"))  # the file exists, migrated
        _poison(path, at_commit=at_commit)
        if at_commit:  # deferred foreign keys are only checked with enforcement on
            await engine.storage._run("test", lambda c: c.execute("PRAGMA foreign_keys = ON"))
        release, held = await _hold_writer(engine, in_transaction=False)
        good_before = asyncio.ensure_future(engine.store(note("good one")))
        bad = asyncio.ensure_future(engine.store_many([note("fine neighbour"), note("a poison pill")]))
        good_after = asyncio.ensure_future(engine.store_many([note("good two"), note("good three")]))
        await _until(lambda: len(engine.storage._commits._queue) == 3)
        release.set()
        await held
        outcomes = await asyncio.wait_for(
            asyncio.gather(good_before, bad, good_after, return_exceptions=True), WAIT_S
        )
        assert engine.storage._commits.groups == 1
        error = outcomes[1]
        assert isinstance(error, Unavailable) and str(error).startswith("store_many: database error")
        assert not isinstance(outcomes[0], BaseException) and not isinstance(outcomes[2], BaseException)
        good = {outcomes[0].id, *(r.id for r in outcomes[2])}  # type: ignore[union-attr]
        # the engine goes on writing after the failure
        later = await engine.store(note("after the failure"))
    present = _ids_in(path)
    assert good | {later.id} <= present
    with sqlite3.connect(path) as raw:
        texts = {str(r[0]) for r in raw.execute("SELECT text FROM items")}
    assert "fine neighbour" not in texts and "a poison pill" not in texts  # the failing batch is whole


async def test_a_cancelled_store_leaves_the_others_to_commit(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with _engine(path) as engine:
        await engine.store(note("opened"))
        release, held = await _hold_writer(engine, in_transaction=False)
        kept = [asyncio.ensure_future(engine.store(note(f"kept {i}"))) for i in range(3)]
        dropped = asyncio.ensure_future(engine.store(note("dropped")))
        await _until(lambda: len(engine.storage._commits._queue) == 4)
        dropped.cancel()
        await _until(lambda: len(engine.storage._commits._queue) == 3)  # taken back before any flush ran
        release.set()
        await held
        done = await asyncio.wait_for(asyncio.gather(*kept), WAIT_S)
        with pytest.raises(asyncio.CancelledError):
            await dropped
    with sqlite3.connect(path) as raw:
        texts = {str(r[0]) for r in raw.execute("SELECT text FROM items")}
    assert {r.id for r in done} <= _ids_in(path)
    assert "dropped" not in texts


WRITER_SRC = """
import asyncio, json, sys
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine

async def main(path: str, durability: str) -> None:
    engine = SqliteEngine(path, embedder=None, durability=durability)
    n = 0

    async def one(k: int) -> None:
        item = NewItem(ItemKind.LEARNING, f"looping store {k}", ItemMeta(namespace=Namespace.parse("team:t")))
        result = await engine.store(item)
        print(json.dumps(result.id), flush=True)

    while True:  # four callers at a time, so commits are grouped
        await asyncio.gather(*(one(n + k) for k in range(4)))
        n += 4

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


@pytest.mark.parametrize("durability", ["full", "normal"])
async def test_no_acknowledged_store_is_lost_when_the_writer_is_killed(
    tmp_path: Path, durability: str
) -> None:
    path = tmp_path / "killed.db"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER_SRC, str(path), durability],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acknowledged: list[str] = []
    try:
        assert child.stdout is not None
        while len(acknowledged) < 200:
            line = child.stdout.readline()
            if not line:
                pytest.fail(f"writer died early: {child.stderr.read() if child.stderr else ''}")
            acknowledged.append(json.loads(line))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=WAIT_S)
        acknowledged += [json.loads(line) for line in child.stdout.read().splitlines() if line.strip()]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    async with _engine(path) as engine:
        found: set[str] = set()
        for at in range(0, len(acknowledged), 500):
            got = await engine.get(GetRequest(ids=tuple(acknowledged[at : at + 500])))
            found.update(i.id for i in got.items)
    assert found == set(acknowledged), "an acknowledged store is missing"
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# -- settings and closing -------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["fast", "FULL", "", 1, True])
def test_a_bad_durability_is_refused_naming_the_field(tmp_path: Path, bad: object) -> None:
    with pytest.raises(InvalidRequest, match="`durability`"):
        SqliteEngine(tmp_path / "m.db", embedder=None, durability=bad)  # type: ignore[arg-type]


def test_a_bad_durability_in_the_environment_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINYMEMORY_SQLITE_SYNC", "sometimes")
    with pytest.raises(InvalidRequest, match="TINYMEMORY_SQLITE_SYNC"):
        SqliteEngine(tmp_path / "m.db", embedder=None)


@pytest.mark.parametrize("bad", [-1, 65, 1.5, "2", None])
def test_a_bad_reader_count_is_refused(tmp_path: Path, bad: object) -> None:
    with pytest.raises(InvalidRequest, match="`readers`"):
        SqliteEngine(tmp_path / "m.db", embedder=None, readers=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "env", "sync"),
    [(None, None, 2), ("normal", None, 1), (None, "normal", 1), (None, " Normal ", 1), ("full", "normal", 2)],
)
async def test_durability_sets_the_writer_s_sync_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str | None, env: str | None, sync: int
) -> None:
    if env is None:
        monkeypatch.delenv("TINYMEMORY_SQLITE_SYNC", raising=False)
    else:
        monkeypatch.setenv("TINYMEMORY_SQLITE_SYNC", env)
    async with _engine(tmp_path / "m.db", durability=given) as engine:
        await engine.store(note("synced"))
        assert await engine.storage._run("t", lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == sync


@pytest.mark.parametrize("readers", [0, 1, 3])
async def test_every_reader_count_serves_reads_and_writes(tmp_path: Path, readers: int) -> None:
    async with _engine(tmp_path / "m.db", readers=readers) as engine:
        stored = await engine.store_many([note(f"reader count {i}") for i in range(5)])
        fetched = await asyncio.gather(
            *(engine.fetch(FetchRequest("reader count", limit=10)) for _ in range(6))
        )
        assert all({h.item.id for h in f.hits} == {s.id for s in stored} for f in fetched)


async def test_memory_databases_keep_one_connection(tmp_path: Path) -> None:
    async with _engine(Path(":memory:")) as engine:
        stored = await engine.store(note("only in memory"))
        got = await asyncio.gather(*(engine.get(GetRequest(ids=(stored.id,))) for _ in range(4)))
        assert all([i.id for i in g.items] == [stored.id] for g in got)
        assert engine.storage._db.readers == 0


def _engine_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("tinymemory-")}


async def test_closing_stops_every_thread_and_closes_every_connection(tmp_path: Path) -> None:
    before = _engine_threads()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        engine = _engine(tmp_path / "m.db", embedder=HashEmbedder(), readers=3)
        await engine.store_many([note(f"closing {i}") for i in range(4)])
        await asyncio.gather(
            *(engine.fetch(FetchRequest("closing", mode=FetchMode.HYBRID)) for _ in range(6))
        )
        readers = list(engine.storage._db._reader_conns)
        assert readers
        await engine.close()
        gc.collect()
    assert _engine_threads() <= before
    for conn in readers:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    with pytest.raises(Unavailable, match="closed"):
        await engine.store(note("too late"))
    with pytest.raises(Unavailable, match="closed"):
        await engine.list(ListRequest(filter=MetaFilter()))
