"""`make run` starts the service on the embedded SQLite default and prints its URL and a development
token; a client drives that URL with that token; SIGTERM drains, and every acknowledged write is on disk."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from tinymemory.api import GetRequest
from tinymemory.engines.sqlite import SqliteEngine

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
TOKEN_LINE = re.compile(r"dev token\s+(\S+)")


def start(tmp_path: Path) -> tuple[subprocess.Popen[str], str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env.update(TINYMEMORY_HOME=str(tmp_path), TINYMEMORY_PORT="0")
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    url = token = None
    seen: list[str] = []
    deadline = time.monotonic() + 180
    while (url is None or token is None) and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        url = url or (m.group(1) if (m := URL_LINE.search(line)) else None)
        token = token or (m.group(1) if (m := TOKEN_LINE.search(line)) else None)
    if url is None or token is None:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("make run printed no URL and token:\n" + "".join(seen))
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
    return proc, url, token


@pytest.mark.sqlite_only  # `make run` serves the embedded SQLite default
def test_make_run_serves_the_printed_url_with_the_printed_token(tmp_path: Path) -> None:
    proc, url, token = start(tmp_path)
    acknowledged: list[str] = []
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            assert http.get("/readyz").json() == {"status": "ready"}
            saved = http.post("/api/v1/memory/remember", json={"content": "The demo user likes kites"})
            assert saved.status_code == 200, saved.text
            acknowledged.append(saved.json()["id"])
            hits = http.post("/api/v1/memory/recall", json={"query": "kites"}).json()["memories"]
            assert hits and hits[0]["id"] == acknowledged[0]
            assert http.get("/api/v1/memory/tool-guidance").status_code == 200
            assert httpx.get(url + "/api/v1/memory/recall").status_code in (401, 405)

            # Writes keep coming while the service is told to stop: each one acknowledged must be kept.
            def writer() -> None:
                for i in range(200):
                    try:
                        r = http.post("/api/v1/memory/remember", json={"content": f"Late fact number {i}"})
                    except httpx.HTTPError:
                        return
                    if r.status_code != 200:
                        return
                    acknowledged.append(r.json()["id"])

            thread = threading.Thread(target=writer)
            thread.start()
            while len(acknowledged) < 5:
                time.sleep(0.01)
            os.killpg(proc.pid, signal.SIGTERM)
            thread.join(timeout=60)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    db = tmp_path / "memory.db"
    assert db.exists()

    async def stored() -> set[str]:
        async with SqliteEngine(db, embedder=None) as engine:
            got = await engine.get(GetRequest(ids=tuple(acknowledged)))
            return {item.id for item in got.items}

    assert set(acknowledged) <= asyncio.run(stored())
    assert len(acknowledged) > 5
