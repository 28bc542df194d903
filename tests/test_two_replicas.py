"""Two `tinymemory serve` processes over one Postgres database behave as one service: a memory written
through one is read through the other, racing supersessions of one `about` key through both leave exactly
one active version, both answer /readyz, and stopping one leaves the other serving.

Always on Postgres (whatever TINYMEMORY_TEST_ENGINE says): replicas need a shared server store.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from postgres.server import pg_dsn
from tinymemory.api import About, ListRequest, MetaFilter
from tinymemory.service.tokens import issue_jwt

__all__ = ["pg_dsn"]  # the fixture, imported so this module can use it

SECRET = "two-replicas-secret-" + "y" * 40
MEMORY = "/api/v1/memory"
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
ABOUT = {"about_kind": "person", "about_key": "sam-desk"}
RACERS = 24


@dataclass
class Replica:
    proc: subprocess.Popen[str]
    url: str
    log: list[str]

    def client(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)


def launch(dsn: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env.update(TINYMEMORY_JWT_SECRET=SECRET, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "tinymemory", "serve", "--db", dsn, "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def announced(proc: subprocess.Popen[str]) -> Replica:
    """Wait for the replica's URL line, then keep its output drained (and kept, for failures)."""
    assert proc.stdout is not None
    log: list[str] = []
    deadline = time.monotonic() + 180
    url = None
    while url is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        log.append(line)
        url = m.group(1) if (m := URL_LINE.search(line)) else None
    if url is None:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("a replica printed no URL:\n" + "".join(log))
    stream = proc.stdout
    threading.Thread(target=lambda: log.extend(stream), daemon=True).start()
    return Replica(proc, url, log)


@pytest.fixture
def replicas(pg_dsn: str) -> Iterator[tuple[Replica, Replica]]:
    """Two replicas started at the same moment (their migrations race under the advisory lock)."""
    procs = [launch(pg_dsn), launch(pg_dsn)]
    started: list[Replica] = []
    try:
        for proc in procs:
            started.append(announced(proc))
        yield started[0], started[1]
    finally:
        for replica in started:
            replica.stop()
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def active_versions(dsn: str) -> list[str]:
    """The active texts of the raced `about` key, read straight from the database."""
    from tinymemory.engines.postgres import PostgresEngine

    async def read() -> list[str]:
        async with PostgresEngine(dsn, embedder=None) as engine:
            page = await engine.list(
                ListRequest(filter=MetaFilter(about=About("person", "sam-desk")), limit=100)
            )
        return [item.text for item in page.items]

    return asyncio.run(read())


def test_two_replicas_share_one_store(pg_dsn: str, replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    token = issue_jwt(SECRET, "acme", "sam")
    with one.client(token) as http1, two.client(token) as http2:
        for http in (http1, http2):
            assert ok(http.get("/readyz")) == {"status": "ready"}

        saved = ok(http1.post(f"{MEMORY}/remember", json={"content": "Sam's locker is number 42"}))
        found = ok(http2.post(f"{MEMORY}/recall", json={"query": "locker number"}))["memories"]
        assert [m["id"] for m in found] == [saved["id"]]
        opened = ok(http2.post(f"{MEMORY}/open", json={"memory_id": saved["id"]}))
        assert opened["content"] == "Sam's locker is number 42"

        def remember(i: int) -> dict[str, Any]:
            http = http1 if i % 2 else http2
            body = {"content": f"Sam sits on floor {i}", **ABOUT}
            answer: dict[str, Any] = ok(http.post(f"{MEMORY}/remember", json=body))
            return answer

        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(remember, range(RACERS)))
        assert {a["status"] for a in answers} <= {"created", "updated"}
        assert len({a["id"] for a in answers}) == RACERS

        for http in (http1, http2):
            listed = ok(http.post(f"{MEMORY}/list", json={}))["memories"]
            desks = [m for m in listed if m["metadata"].get("about_key") == "sam-desk"]
            assert len(desks) == 1, desks
        survivor = desks[0]["content"]
        assert active_versions(pg_dsn) == [survivor]
        assert ok(http1.post(f"{MEMORY}/open", json={"memory_id": desks[0]["id"]}))["status"] == "opened"

    one.stop()
    assert one.proc.returncode is not None
    with two.client(token) as http2:
        assert ok(http2.get("/readyz")) == {"status": "ready"}
        later = ok(http2.post(f"{MEMORY}/remember", json={"content": "Sam moved to floor 9", **ABOUT}))
        assert later["status"] == "updated"
        found = ok(http2.post(f"{MEMORY}/recall", json={"query": "Sam floor"}))["memories"]
        floors = [m["content"] for m in found if "floor" in m["content"]]
        assert floors == ["Sam moved to floor 9"]
    assert active_versions(pg_dsn) == ["Sam moved to floor 9"]


def test_a_killed_replica_loses_no_acknowledged_write(pg_dsn: str, replicas: tuple[Replica, Replica]) -> None:
    """SIGKILL one replica while clients write through it: every write it acknowledged is read back
    through the other, and the survivor keeps serving."""
    one, two = replicas
    token = issue_jwt(SECRET, "acme", "kim")
    acknowledged: list[str] = []
    stop = threading.Event()

    def writer(worker: int) -> None:
        with one.client(token) as http:
            for i in range(10_000):
                if stop.is_set():
                    return
                try:
                    res = http.post(f"{MEMORY}/remember", json={"content": f"note {worker}-{i} for kim"})
                except httpx.HTTPError:
                    return  # the replica died mid-request: not acknowledged
                if res.status_code != 200:
                    return
                acknowledged.append(res.json()["id"])

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(writer, w) for w in range(4)]
        deadline = time.monotonic() + 60
        while len(acknowledged) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(one.proc.pid, signal.SIGKILL)
        one.proc.wait(timeout=30)
        stop.set()
        for future in futures:
            future.result(timeout=60)
    assert len(acknowledged) >= 40
    with two.client(token) as http2:
        for memory_id in acknowledged:
            opened = ok(http2.post(f"{MEMORY}/open", json={"memory_id": memory_id}))
            assert opened["status"] == "opened"
        later = ok(http2.post(f"{MEMORY}/remember", json={"content": "kim is still served"}))
        assert later["status"] == "created"
