"""The engine conformance suite, shipped so that any `MemoryEngine` can prove itself against the contract.

An engine author writes one `EngineFactory` (how to open a fresh, empty engine under a temporary
directory, and what it serves) and runs the whole suite against it::

    pytest --pyargs tinymemory.testing.suite -p tinymemory.testing.plugin \\
        --tinymemory-engine mypkg.engines:factory

`mypkg.engines:factory` names a module attribute holding an `EngineFactory` or a list of them; the
option may be repeated. Every test runs once per factory. The suite needs pytest and pytest-asyncio
(the `testing` extra); it marks its own async tests, so it runs in either asyncio mode.

A project can instead keep the suite inside its own test tree: a conftest defines a fixture named
`tinymemory_engine_factory` parametrized over its factories, imports the `engine` and `engine_factory`
fixtures from `tinymemory.testing.plugin`, and one module per suite module re-exports its tests
(`from tinymemory.testing.suite.test_versions import *`). tinymemory's own tests do exactly that for its
SQLite engine.

Nothing in the library imports this package; it exists for test runs only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta

from tinymemory.api import MemoryEngine, utcnow

__all__ = ["EngineFactory", "OpenEngine", "SuiteClock"]

OpenEngine = Callable[..., AbstractAsyncContextManager[MemoryEngine]]
"""Opens an engine over empty storage under the given temporary directory and closes it on exit;
with `EngineFactory.takes_clock`, it is also given the test's `SuiteClock` as `clock=`."""


class SuiteClock:
    """The time a conformance test and its engine share, so a test that needs an instant strictly
    between two stores moves the clock instead of sleeping.

    For an engine given the clock (`EngineFactory.takes_clock`) it is manual: every reading is one
    microsecond after the last, like a real clock, and `tick` jumps 20 ms. Otherwise it reads the system
    clock and `tick` really waits 20 ms.
    """

    TICK = timedelta(milliseconds=20)

    def __init__(self, manual: bool) -> None:
        self.manual = manual
        self._now = utcnow()

    def __call__(self) -> datetime:
        if not self.manual:
            return utcnow()
        self._now += timedelta(microseconds=1)
        return self._now

    def now(self) -> datetime:
        """The current instant (for a filter's `as_of` or a cut-off)."""
        return self()

    async def tick(self) -> None:
        """Leave a gap, so an instant taken now falls strictly between what came before and after."""
        if self.manual:
            self._now += self.TICK
        else:
            await asyncio.sleep(self.TICK.total_seconds())


@dataclass(frozen=True)
class EngineFactory:
    """How to open a fresh, empty engine under a temporary directory, and what it promises to serve.

    `open(tmp)` is an async context manager yielding an engine over empty storage (a new file under
    `tmp`, or a throwaway schema or database for a server) and closing it afterwards. With
    `shares_storage` (the default), opening twice on the same `tmp` reaches the same storage, and a test
    holds two such engines to seeing each other's writes; set it False for storage private to one
    engine (an in-memory database). `semantic` declares that the engine serves semantic and hybrid fetch;
    the descriptor tests hold the engine to that declaration either way. `requires` names a module that
    must be importable and `skip_unless` says whether a server is reachable, so machines without one
    skip instead of failing. With `takes_clock`, `open(tmp, clock=...)` passes the clock to the engine
    (engines built on `tinymemory.engines.core.StorageEngine` take `clock=`), and the suite never sleeps.
    """

    name: str
    open: OpenEngine
    semantic: bool
    shares_storage: bool = True
    requires: str | None = None
    skip_unless: Callable[[], bool] | None = None
    takes_clock: bool = False
