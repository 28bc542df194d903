"""Retention under `tinymemory serve --workers 2`: the workers share one lock for their periodic jobs, so
the job runs once per tick whatever the number of workers, and it erases an expired memory with no
worker failing at it."""

from __future__ import annotations

import asyncio
import http.client
import os
import re
import signal
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from engines import make_engine
from test_retention_consent import stored_anywhere
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, utcnow

from .test_workers import MEMORY, call, start, token

POLICY = "retention: {categories: {memory:health: 30d}}\n"
RETENTION_SECONDS = 0.5
SECRET = "zebraworkers7 the user's blood type is O negative"


async def _seed(store: Path) -> str:
    async with make_engine(store) as engine:
        meta = replace(
            ItemMeta(Namespace.parse("workspace:acme/user:alice")),
            learning_kind="general",
            category="memory:health",
            observed_at=utcnow() - timedelta(days=31),
        )
        return (await engine.store(NewItem(ItemKind.LEARNING, SECRET, meta, 0.8))).id


def test_two_workers_run_retention_through_one_lock(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    memory_id = asyncio.run(_seed(tmp_path / "service.db"))
    service = start(tmp_path, "--retention-seconds", "0.2", "--policy", str(tmp_path / "policy.yaml"))
    try:
        conns = service.pinned()
        deadline = time.monotonic() + 60
        statuses: set[str] = {"opened"}
        while statuses != {"not_found"} and time.monotonic() < deadline:
            statuses = {
                call(c, "POST", f"{MEMORY}/open", {"memory_id": memory_id}, token())[1]["status"]
                for c in conns.values()
            }
            time.sleep(0.1)
        assert statuses == {"not_found"}
    finally:
        service.stop()
        if service.proc.returncode is None:
            os.killpg(service.proc.pid, signal.SIGKILL)
    assert not any("retention job failed" in line for line in service.log), "".join(service.log[-40:])
    # read once the workers are gone: another worker's open read can hold the WAL until a later checkpoint
    assert not stored_anywhere(tmp_path / "service.db", "zebraworkers7")


def retention_runs(conn: http.client.HTTPConnection) -> float:
    """The runs of the retention job the worker behind `conn` made (its own /metrics)."""
    status, text, _ = call(conn, "GET", "/metrics")
    assert status == 200
    found = re.search(r"^tinymemory_retention_runs_total (\S+)$", text, re.MULTILINE)
    assert found is not None, text[:2000]
    return float(found.group(1))


def test_retention_runs_once_per_tick_across_workers(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    service = start(
        tmp_path, "--retention-seconds", str(RETENTION_SECONDS), "--policy", str(tmp_path / "policy.yaml")
    )
    try:
        conns = service.pinned()
        before = {w: retention_runs(c) for w, c in conns.items()}
        started = time.monotonic()
        time.sleep(8 * RETENTION_SECONDS)
        after = {w: retention_runs(c) for w, c in conns.items()}
        elapsed = time.monotonic() - started
    finally:
        service.stop()
        if service.proc.returncode is None:
            os.killpg(service.proc.pid, signal.SIGKILL)
    ran = {w: after[w] - before[w] for w in conns}
    assert sorted(ran.values())[0] == 0, ran  # one worker ran retention, the other skipped every tick
    ticks = elapsed / RETENTION_SECONDS
    assert 0.5 * ticks <= sum(ran.values()) <= ticks + 2, (ran, elapsed)
