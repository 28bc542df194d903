"""`tinymemory serve --workers 2` as an operator runs it: a real supervisor and real worker processes on
one port over one store (a SQLite file; a Postgres database with TINYMEMORY_TEST_ENGINE=postgres),
driven over HTTP on 127.0.0.1.

A connection stays with the worker that accepted it, and every response names that worker
(`X-TinyMemory-Worker`), so a test holds one connection per worker and knows which process answered.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine, store_target
from tinymemory.api import GetRequest
from tinymemory.service.tokens import issue_jwt

SECRET = "workers-secret-" + "w" * 40
WORKERS = 2
GATE_SECONDS = 0.5
MEMORY = "/api/v1/memory"
URL_LINE = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")
TOKEN_LINE = re.compile(r"dev token\s+(\S+)")
START_S = 120.0  # a worker imports the web stack and opens the store: slow on a busy machine


def token(user: str = "alice", agent: str | None = None, *, admin: bool = False) -> str:
    return issue_jwt(SECRET, "acme", user, agent, admin=admin)


@dataclass
class Service:
    proc: subprocess.Popen[str]
    port: int
    db: Path
    log: list[str] = field(default_factory=list)
    dev_token: str = ""

    def workers(self) -> set[int]:
        """The worker processes the supervisor runs now (its children started by multiprocessing's
        spawn; not its resource tracker)."""
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            return set()
        found = set()
        for pid in map(int, children):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                found.add(pid)
        return found

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def pinned(self, want: int = WORKERS, timeout: float = START_S) -> dict[int, http.client.HTTPConnection]:
        """One open connection to each of `want` distinct workers: many connections opened at once are
        shared out among the workers that accept them; the ones not needed are closed."""
        deadline = time.monotonic() + timeout
        kept: dict[int, http.client.HTTPConnection] = {}
        while len(kept) < want:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                pytest.fail(f"reached workers {sorted(kept)} of {want}:\n" + "".join(self.log[-40:]))
            with ThreadPoolExecutor(16) as pool:
                opened = list(pool.map(lambda _: self._probe(), range(16)))
            for worker, conn in opened:
                if worker is not None and worker not in kept:
                    kept[worker] = conn
                else:
                    conn.close()
        return kept

    def _probe(self) -> tuple[int | None, http.client.HTTPConnection]:
        conn = self.connection()
        try:
            status, _, worker = call(conn, "GET", "/readyz")
        except OSError:
            return None, conn
        return (worker if status == 200 else None), conn

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        return self.proc.returncode


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, bearer: str | None = None
) -> tuple[int, Any, int]:
    """(status, JSON body or text, the worker's pid) of one request on `conn`."""
    headers = {"Content-Type": "application/json"}
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    res = conn.getresponse()
    raw = res.read().decode()
    worker = int(res.getheader("x-tinymemory-worker") or 0)
    try:
        parsed: Any = json.loads(raw)
    except ValueError:
        parsed = raw
    return res.status, parsed, worker


def start(tmp: Path, *extra: str, workers: int = WORKERS, dev: bool = False) -> Service:
    """`serve --workers N` over a store in `tmp`, verifying tokens signed with SECRET (with `dev`: its
    own development secret, kept in `tmp`, and the token it prints)."""
    db = tmp / "service.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env.update(TINYMEMORY_DB=store_target(db), TINYMEMORY_HOME=str(tmp), PYTHONUNBUFFERED="1")
    if dev:
        extra = (*extra, "--dev")
    else:
        env["TINYMEMORY_JWT_SECRET"] = SECRET
    argv = [sys.executable, "-m", "tinymemory", "serve", "--port", "0", "--workers", str(workers)]
    proc = subprocess.Popen(
        [*argv, "--no-embedder", "--gate-seconds", str(GATE_SECONDS), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    service = Service(proc, 0, db)
    deadline = time.monotonic() + START_S
    while not (service.port and (service.dev_token or not dev)) and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        service.log.append(line)
        if m := URL_LINE.search(line):
            service.port = int(m.group(1))
        if m := TOKEN_LINE.search(line):
            service.dev_token = m.group(1)
    if not service.port or (dev and not service.dev_token):
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("serve --workers printed no URL:\n" + "".join(service.log))

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            service.log.append(line)

    threading.Thread(target=drain, daemon=True).start()
    return service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    running = start(tmp_path_factory.mktemp("workers"))
    try:
        yield running
    finally:
        running.stop()
        if running.proc.returncode is None:
            os.killpg(running.proc.pid, signal.SIGKILL)


def ok(answer: tuple[int, Any, int], status: int = 200) -> Any:
    assert answer[0] == status, answer
    return answer[1]


def test_a_write_through_one_worker_is_read_through_the_other_at_once(service: Service) -> None:
    (a, first), (b, second) = service.pinned().items()
    saved = ok(call(first, "POST", f"{MEMORY}/remember", {"content": "Noor keeps bees on the roof"}, token()))
    hits = ok(call(second, "POST", f"{MEMORY}/recall", {"query": "bees on the roof"}, token()))["memories"]
    assert [h["id"] for h in hits][:1] == [saved["id"]]
    opened = ok(call(second, "POST", f"{MEMORY}/open", {"memory_id": saved["id"]}, token()))
    assert "bees" in json.dumps(opened)
    assert a != b


def test_a_forget_through_one_worker_is_forgotten_through_all(service: Service) -> None:
    conns = service.pinned()
    (_, first), (_, second) = conns.items()
    saved = ok(call(first, "POST", f"{MEMORY}/remember", {"content": "Ivo's locker code is 4417"}, token()))
    for conn in conns.values():  # every worker has read it (and its caches hold whatever they hold)
        hits = ok(call(conn, "POST", f"{MEMORY}/recall", {"query": "locker code"}, token()))["memories"]
        assert saved["id"] in [h["id"] for h in hits]
    ok(call(first, "POST", f"{MEMORY}/forget", {"memory_id": saved["id"]}, token()))
    hits = ok(call(second, "POST", f"{MEMORY}/recall", {"query": "locker code"}, token()))["memories"]
    assert saved["id"] not in [h["id"] for h in hits]
    opened = ok(call(second, "POST", f"{MEMORY}/open", {"memory_id": saved["id"]}, token()))
    assert opened["status"] == "not_found"


def test_a_registry_change_through_one_worker_counts_in_all_at_once(service: Service) -> None:
    (_, first), (_, second) = service.pinned().items()
    admin, helper = token("boss", admin=True), token("alice", "scribe")
    ok(call(first, "PUT", "/api/v1/agents/scribe", {"notes": "Write down ticket numbers."}, admin), 201)
    guidance = ok(call(second, "GET", f"{MEMORY}/tool-guidance", None, helper))
    assert "ticket numbers" in json.dumps(guidance)  # the second worker now holds a copy of the record
    ok(call(first, "PUT", "/api/v1/agents/scribe", {"notes": "Write down invoice dates."}, admin))
    guidance = json.dumps(ok(call(second, "GET", f"{MEMORY}/tool-guidance", None, helper)))
    assert "invoice dates" in guidance and "ticket numbers" not in guidance
    ok(call(first, "DELETE", "/api/v1/agents/scribe", None, admin))
    assert "invoice dates" not in json.dumps(ok(call(second, "GET", f"{MEMORY}/tool-guidance", None, helper)))


def gate_runs(conn: http.client.HTTPConnection) -> float:
    status, text, _ = call(conn, "GET", "/metrics")
    assert status == 200
    found = re.search(r"^tinymemory_gate_runs_total (\S+)$", text, re.MULTILINE)
    assert found is not None, text[:2000]
    return float(found.group(1))


def test_the_gate_runs_once_per_tick_across_workers(service: Service) -> None:
    conns = service.pinned()
    before = {w: gate_runs(c) for w, c in conns.items()}
    started = time.monotonic()
    time.sleep(8 * GATE_SECONDS)
    after = {w: gate_runs(c) for w, c in conns.items()}
    elapsed = time.monotonic() - started
    ran = {w: after[w] - before[w] for w in conns}
    assert sorted(ran.values())[0] == 0, ran  # one worker ran the gate, the other skipped every tick
    assert 0.5 * elapsed / GATE_SECONDS <= sum(ran.values()) <= elapsed / GATE_SECONDS + 2, (ran, elapsed)


def test_kill_9_of_a_worker_mid_stream_loses_no_acknowledged_write(service: Service) -> None:
    service.pinned()  # both workers serve
    acknowledged: list[str] = []
    answered_by: list[int] = []
    failures: list[str] = []
    stop = threading.Event()

    def writer(n: int) -> None:
        conn, i = service.connection(), 0
        while not stop.is_set():
            i += 1
            try:
                status, body, worker = call(
                    conn, "POST", f"{MEMORY}/remember", {"content": f"writer {n} fact {i}"}, token()
                )
            except (OSError, http.client.HTTPException) as exc:  # the connection's worker was killed
                failures.append(type(exc).__name__)
                conn.close()
                conn = service.connection()
                continue
            if status == 200:
                acknowledged.append(body["id"])
                answered_by.append(worker)
            else:
                failures.append(f"{status}: {body}")
        conn.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    try:
        deadline = time.monotonic() + 60
        while len(set(answered_by)) < WORKERS and time.monotonic() < deadline:
            time.sleep(0.05)
        victim = answered_by[-1]
        os.kill(victim, signal.SIGKILL)
        killed_at = len(acknowledged)
        deadline = time.monotonic() + 60
        while len(acknowledged) < killed_at + 50 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert len(acknowledged) >= killed_at + 50, "the other worker did not keep serving"
    assert all(w != victim for w in answered_by[killed_at + 6 :])  # past what was in flight
    assert not [f for f in failures if f[:1].isdigit()], failures  # no error answers, only cut connections

    async def stored() -> set[str]:
        async with make_engine(service.db, embedder=None) as engine:
            got = await engine.get(GetRequest(ids=tuple(acknowledged)))
            return {item.id for item in got.items}

    assert set(acknowledged) <= asyncio.run(stored())


def test_a_worker_that_dies_is_replaced(service: Service) -> None:
    conns = service.pinned()
    victim = next(iter(conns))
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        now = service.workers()
        if len(now) == WORKERS and victim not in now:
            break
        time.sleep(0.2)
    now = service.workers()
    assert len(now) == WORKERS and victim not in now, now
    assert set(service.pinned()) == now  # the new worker answers on the same port


@pytest.mark.parametrize("count", [1, WORKERS])
def test_sigterm_drains_every_worker_and_exits_0(tmp_path: Path, count: int) -> None:
    running = start(tmp_path, workers=count)
    try:
        conns = running.pinned(count)
        workers = running.workers()
        if count == 1:  # one process serves alone: no supervisor, no worker header
            assert not workers and set(conns) == {0}
        else:
            assert set(conns) == workers
        saved = [
            ok(call(c, "POST", f"{MEMORY}/remember", {"content": f"fact {w}"}, token()))["id"]
            for w, c in conns.items()
        ]
        running.proc.send_signal(signal.SIGTERM)  # the supervisor alone: it passes the signal on
        assert running.proc.wait(timeout=60) == 0, "".join(running.log[-40:])
        assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
    finally:
        if running.proc.poll() is None:
            os.killpg(running.proc.pid, signal.SIGKILL)

    async def stored() -> set[str]:
        async with make_engine(running.db, embedder=None) as engine:
            return {item.id for item in (await engine.get(GetRequest(ids=tuple(saved)))).items}

    assert set(saved) <= asyncio.run(stored())


def test_the_printed_dev_token_works_on_every_worker(tmp_path: Path) -> None:
    running = start(tmp_path, dev=True)
    try:
        for worker, conn in running.pinned().items():
            body = {"content": f"Worker {worker} was asked about kites"}
            saved = ok(call(conn, "POST", f"{MEMORY}/remember", body, running.dev_token))
            assert saved["status"] == "created", worker
    finally:
        assert running.stop() == 0


def test_an_inspector_form_shown_by_one_worker_is_accepted_by_another(service: Service) -> None:
    (_, first), (_, second) = service.pinned().items()
    mine = token("greta")
    target = ok(call(first, "POST", f"{MEMORY}/remember", {"content": "Greta's bike is green"}, mine))["id"]
    cookie = {"Cookie": f"tinymemory_inspector={mine}"}
    first.request("GET", f"/items/{target}", headers=cookie)
    page = first.getresponse().read().decode()
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert found is not None, page[:500]
    form = {**cookie, "Content-Type": "application/x-www-form-urlencoded"}
    second.request("POST", f"/items/{target}/forget", body=f"csrf={found.group(1)}", headers=form)
    answer = second.getresponse()
    answer.read()
    assert answer.status == 303, answer.status
    opened = ok(call(first, "POST", f"{MEMORY}/open", {"memory_id": target}, mine))
    assert opened["status"] == "not_found"
