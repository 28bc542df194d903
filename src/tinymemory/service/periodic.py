"""One home for the service's background jobs: run a job every `seconds` until shutdown.

The gate and retention both run this way. With a lock (the workers of one service share a file lock,
service/fleet.py), a tick runs the job only in the worker holding it, so each tick runs once whatever
the number of workers; a worker that finds the lock free takes it, so the jobs move on when the holder
dies. A failed run is logged and retried on the next tick: both jobs are idempotent and resume where a
run stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from prometheus_client import Counter

from tinymemory.service.fleet import GateLock

log = logging.getLogger("tinymemory.service")


@asynccontextmanager
async def periodic(
    name: str,
    seconds: float,
    job: Callable[[], Awaitable[None]],
    runs: Counter,
    lock: GateLock | None = None,
) -> AsyncIterator[None]:
    """Run `job` every `seconds` while the context is open, counting each run this process makes in
    `runs` (the workers' counts together show that a tick ran once). `name` is what a failure's log
    line calls the job."""

    async def loop() -> None:
        while True:
            await asyncio.sleep(seconds)
            if lock is not None and not lock.held():
                continue
            runs.inc()
            try:
                await job()
            except Exception:
                log.exception("the %s failed; it will run again in %s s", name, seconds)

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if lock is not None:
            lock.release()
