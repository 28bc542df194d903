"""The retention job in the background: every `retention_seconds`, in exactly one worker.

It shares the gate's lock and loop (service/periodic.py): the worker holding the lock runs the periodic
jobs, the others skip their ticks. Each run counts in `tinymemory_retention_runs_total`; the job is
idempotent (policy/retention.py), so a failed run is retried on the next tick."""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager

from tinymemory.policy import RetentionJob
from tinymemory.service.fleet import GateLock
from tinymemory.service.metrics import ServiceMetrics
from tinymemory.service.periodic import periodic
from tinymemory.service.state import ServiceState

log = logging.getLogger("tinymemory.service")


def retention_loop(
    state: ServiceState, seconds: float, metrics: ServiceMetrics, lock: GateLock | None = None
) -> AbstractAsyncContextManager[None]:
    """Run retention every `seconds` until shutdown (only while this process holds `lock`, if given)."""

    async def job() -> None:
        book = state.policies
        report = await RetentionJob(state.engine, book.effective, policies=book.every_policy()).run()
        if report.expired:
            log.info("retention: %s", report.to_dict())

    return periodic("retention job", seconds, job, metrics.retention_runs, lock)
