"""The retention job in the background: every `retention_seconds`, in exactly one worker.

It shares the gate's lock (service/fleet.py): the worker holding it runs the periodic jobs, the others
skip their ticks, and when the holder dies the next tick of another worker takes the lock. A failed run
is logged and retried on the next tick; the job is idempotent (policy/retention.py). Each run this process
makes counts in `tinymemory_retention_runs_total` on the service's metrics (the workers' counts together
show that each tick ran once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from prometheus_client import CollectorRegistry, Counter

from tinymemory.policy import MemoryPolicy, RetentionJob
from tinymemory.service.fleet import GateLock
from tinymemory.service.policies import PolicyBook
from tinymemory.service.state import ServiceState

log = logging.getLogger("tinymemory.service")


def book_policies(book: PolicyBook) -> list[MemoryPolicy]:
    """Every policy a book can answer: each workspace's, and the one any other workspace runs (an
    empty name is never a workspace, so it reads the fallback). With them the retention job reads
    nothing when no policy limits retention."""
    return [*(book.effective(w) for w in book.workspaces), book.effective("")]


@asynccontextmanager
async def retention_loop(
    state: ServiceState,
    seconds: float,
    lock: GateLock | None = None,
    registry: CollectorRegistry | None = None,
) -> AsyncIterator[None]:
    """Run retention every `seconds` until shutdown (only while this process holds `lock`, if given),
    counting each run on `registry` (the service's metrics) when given."""
    runs = (
        Counter(
            "tinymemory_retention_runs",
            "Background runs of the retention job by this process",
            registry=registry,
        )
        if registry is not None
        else None
    )

    async def loop() -> None:
        while True:
            await asyncio.sleep(seconds)
            if lock is not None and not lock.held():
                continue
            if runs is not None:
                runs.inc()
            try:
                book = state.policies
                report = await RetentionJob(state.engine, book.effective, policies=book_policies(book)).run()
            except Exception:
                log.exception("the retention job failed; it will run again in %s s", seconds)
            else:
                if report.expired:
                    log.info("retention: %s", report.to_dict())

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if lock is not None:
            lock.release()
