"""A private event loop on a daemon thread, so sync code (scripts, notebooks with their own running
loop) can drive the async engine without nesting loops.

Several threads may share one loop (one `Memory` used from a thread pool), and any of them may close
it: closing refuses new calls at once, lets the calls already submitted finish (so an acknowledged
write is never cut off by the engine closing under it, and no caller waits on a loop that stopped),
runs the owner's last coroutine (its engine's close), then stops the thread.

A coroutine that needs no particular loop (`run(..., here=True)`: one whose every await is a thread's
future, as the SQLite engine's are) runs on a private loop of the calling thread instead, when that
thread runs no loop of its own: a store then crosses threads twice (to the writer thread and back)
rather than four times (to the loop thread, to the writer, back to the loop, back to the caller).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

CLOSED = "tinymemory: this Memory is closed"


class _ThreadLoop(threading.local):
    """Each thread's private loop for `run(..., here=True)`, made on its first such call and closed when
    the thread ends (its thread-local value is then dropped)."""

    holder: _Holder | None = None


class _Holder:
    """Owns one thread's private loop; closing it when dropped frees its selector and wake-up pipe."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.close()


_thread_loops = _ThreadLoop()


def _run_here(coro: Coroutine[Any, Any, T]) -> T:
    """`coro` run to its end on this thread's private loop. If the wait is interrupted (Ctrl-C), the
    coroutine is cancelled and run to its end first, as an async caller's cancellation would be, so the
    loop holds nothing for the next call."""
    holder = _thread_loops.holder
    if holder is None:
        holder = _thread_loops.holder = _Holder()
    loop = holder.loop
    task = loop.create_task(coro)
    try:
        return loop.run_until_complete(task)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(task)


def in_a_loop() -> bool:
    """Whether the calling thread is running an event loop (then `run(..., here=True)` cannot use it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class LoopThread:
    """One event loop running on its own daemon thread, shared by every thread of its owner."""

    def __init__(self) -> None:
        """Start the loop's thread."""
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()  # `_open`, `_running` and `_here` change together, under it
        self._idle = threading.Condition(self._lock)  # told when `_here` falls to 0
        self._open = True
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._here = 0  # calls running on their callers' own threads
        self._thread = threading.Thread(target=self._loop.run_forever, name="tinymemory-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], *, here: bool = False) -> T:
        """Run `coro` on the loop and wait for its result; RuntimeError once the loop is closed.

        `here`: `coro` may run on any loop, so it runs on the calling thread's own private loop unless
        that thread is running a loop already (a notebook's)."""
        if here and not in_a_loop():
            with self._lock:
                if not self._open:
                    coro.close()
                    raise RuntimeError(CLOSED)
                self._here += 1
            try:
                return _run_here(coro)
            finally:
                with self._lock:
                    self._here -= 1
                    if self._here == 0:
                        self._idle.notify_all()
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
            while self._here:
                self._idle.wait()
        concurrent.futures.wait(running)
        try:
            if last is not None:
                asyncio.run_coroutine_threadsafe(last(), self._loop).result()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
