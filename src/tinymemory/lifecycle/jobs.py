"""BackgroundJob: deferred work AgentMemory hands back (belief builds, compaction).

A job is a list of idempotent steps. The host awaits it now or runs it later; running it again
re-checks the store and changes nothing that is already done. A failing step raises (nothing of that
step is written: each step computes first and writes once) and leaves the job `failed`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

log = logging.getLogger(__name__)

JobStatus = Literal["pending", "running", "done", "failed"]


@dataclass(frozen=True, slots=True)
class JobReport:
    """What one step did."""

    step: str
    stored: tuple[str, ...] = ()  # ids written
    superseded: tuple[str, ...] = ()  # ids whose validity the writes closed
    unchanged: int = 0  # results already in the store (replays, applied learnings)
    turns_read: int = 0


Step = Callable[[], Awaitable[JobReport]]


class BackgroundJob:
    """Deferred work (a belief build, a compaction) as named, idempotent steps. The host awaits it now or
    runs it later; running it again changes nothing already done. `status`, `error` and `reports` say how
    it went."""

    def __init__(self, name: str, steps: Sequence[tuple[str, Step]]) -> None:
        self.name = name
        self._steps = tuple(steps)
        self.status: JobStatus = "pending"
        self.error: str | None = None
        self.reports: tuple[JobReport, ...] = ()

    @property
    def steps(self) -> tuple[str, ...]:
        """The names of the job's steps, in the order they run."""
        return tuple(name for name, _ in self._steps)

    @property
    def stored(self) -> tuple[str, ...]:
        """The ids every finished step wrote."""
        return tuple(i for r in self.reports for i in r.stored)

    async def run(self) -> tuple[JobReport, ...]:
        """Run every step in order; on failure record the error, stop, and re-raise."""
        self.status = "running"
        self.error = None
        reports: list[JobReport] = []
        try:
            for _name, step in self._steps:
                reports.append(await step())
        except Exception as exc:
            self.status = "failed"
            self.error = str(exc)
            self.reports = tuple(reports)
            log.warning("job %s failed: %s", self.name, exc)
            raise
        self.status = "done"
        self.reports = tuple(reports)
        return self.reports

    def __await__(self) -> Generator[Any, None, tuple[JobReport, ...]]:
        return self.run().__await__()

    def __repr__(self) -> str:
        return f"BackgroundJob({self.name!r}, status={self.status!r}, steps={list(self.steps)!r})"
