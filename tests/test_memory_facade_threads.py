"""The sync facade used from several threads at once: each caller's store is its own, ordered and
durable, and a store on SQLite runs its coroutine on the caller's own thread (one hand-off to the writer
thread and one back, not two round trips through the facade's loop thread)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from test_sqlite_support import HashEmbedder
from tinymemory import Memory
from tinymemory.api.requests import StoreResult
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.versions import Pending

NS = "team:acme/user:u0"


class WhereEmbedder(HashEmbedder):
    """Embeds on the thread that runs the store's coroutine (inline), and remembers which one."""

    inline_texts = 16

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = set()

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.threads.add(threading.current_thread().name)
        return super().embed(texts)


class WhereEngine(SqliteEngine):
    """Remembers the threads its writes ran on: the real writer, watched (each caller's items, inside
    the open transaction), not replaced."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writing: set[str] = set()
        commits = self.storage._commits
        real = commits._write

        def watched(conn: sqlite3.Connection, pending: Sequence[Pending], now: datetime) -> list[StoreResult]:
            self.writing.add(threading.current_thread().name)
            return real(conn, pending, now)

        commits._write = watched


def test_threads_storing_at_once_each_read_their_own_writes_and_all_survive(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem = Memory(path, namespace=NS)
    per_thread, threads = 12, 6

    def worker(t: int) -> list[str]:
        ids = []
        for i in range(per_thread):
            text = f"thread {t} stored note number {i} about project zeta{t}x{i}"
            got = mem.store(text)
            assert not got.replayed
            seen = mem.get([got.id]).items
            assert [it.text for it in seen] == [text]  # read-your-writes, from the same thread
            ids.append(got.id)
        return ids

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(worker, range(threads)))
    every = [i for ids in results for i in ids]
    assert len(set(every)) == threads * per_thread
    mem.close()
    with Memory(path, namespace=NS) as again:  # acknowledged means committed
        assert len(again.get(every).items) == threads * per_thread


def test_a_sync_store_on_sqlite_runs_on_the_caller_s_thread(tmp_path: Path) -> None:
    embedder = WhereEmbedder()
    engine = WhereEngine(tmp_path / "m.db", embedder=embedder)
    mem = Memory(engine=engine, namespace=NS)
    try:
        done = threading.Thread(target=lambda: mem.store("the user likes green tea"), name="caller-1")
        done.start()
        done.join()
        mem.store_many(["the user likes black coffee"])
        assert embedder.threads == {"caller-1", threading.current_thread().name}
        assert engine.writing == {"caller-1", threading.current_thread().name}  # no writer-thread hop
        assert len(mem.list().items) == 2
    finally:
        mem.close()


async def test_a_caller_inside_a_running_loop_still_stores(tmp_path: Path) -> None:
    """A notebook's thread runs a loop already: the store goes through the facade's own loop thread."""
    embedder = WhereEmbedder()
    engine = WhereEngine(tmp_path / "m.db", embedder=embedder)
    mem = Memory(engine=engine, namespace=NS)
    try:
        assert asyncio.get_running_loop() is not None
        got = mem.store("the user likes oolong")
        assert embedder.threads == {"tinymemory-loop"}
        assert all(t.startswith("tinymemory-sqlite") for t in engine.writing)  # the loop never blocks
        assert mem.get([got.id]).items[0].text == "the user likes oolong"
    finally:
        mem.close()


def test_closing_from_one_thread_lets_running_stores_finish_and_refuses_later_ones(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem = Memory(path, namespace=NS)
    acked: list[str] = []
    refused: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(5)
    some = threading.Event()  # close once stores are under way in every sense

    def worker(t: int) -> None:
        start.wait()
        for i in range(40):
            try:
                got = mem.store(f"closing race {t} {i}")
            except RuntimeError as exc:
                with lock:
                    refused.append(exc)
                return
            with lock:
                acked.append(got.id)
                if len(acked) >= 8:
                    some.set()

    workers = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for w in workers:
        w.start()
    start.wait()
    assert some.wait(30)
    mem.close()
    for w in workers:
        w.join()
    assert all("closed" in str(e) for e in refused)
    assert len(acked) >= 8
    with Memory(path, namespace=NS) as again:
        assert len(again.get(acked).items) == len(acked)
    with pytest.raises(RuntimeError, match="closed"):
        mem.store("after close")
