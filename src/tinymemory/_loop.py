"""A private event loop on a daemon thread, so sync code (scripts, notebooks with their own running
loop) can drive the async engine without nesting loops.

Several threads may share one loop (one `Memory` used from a thread pool), and any of them may close
it: closing refuses new calls at once, lets the calls already submitted finish (so an acknowledged
write is never cut off by the engine closing under it, and no caller waits on a loop that stopped),
runs the owner's last coroutine (its engine's close), then stops the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

CLOSED = "tinymemory: this Memory is closed"


class LoopThread:
    """One event loop running on its own daemon thread, shared by every thread of its owner."""

    def __init__(self) -> None:
        """Start the loop's thread."""
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()  # `_open` and `_running` change together, under it
        self._open = True
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tinymemory-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for its result; RuntimeError once the loop is closed."""
        with self._lock:
            if not self._open:
                coro.close()
                raise RuntimeError(CLOSED)
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
            self._running.add(future)
        try:
            return future.result()
        finally:
            with self._lock:
                self._running.discard(future)

    def close(self, last: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Refuse new calls, wait for the running ones, run `last()` on the loop, stop the thread.

        A second close (from any thread) does nothing. `last`'s error is raised after the thread
        has stopped, so the loop never outlives its owner.
        """
        with self._lock:
            if not self._open:
                return
            self._open = False
            running = list(self._running)
        concurrent.futures.wait(running)
        try:
            if last is not None:
                asyncio.run_coroutine_threadsafe(last(), self._loop).result()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
