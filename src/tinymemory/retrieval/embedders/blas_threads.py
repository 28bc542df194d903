"""Run small embedding calls on one BLAS thread.

OpenBLAS worker threads busy-wait. On a small, shared machine a one-query forward pass then spends most
of its time with two threads waiting on each other (6 ms quiet, 40-300 ms under load); one thread does
not wait at all. Small inputs gain nothing from a second thread anyway, so they run on one.

The BLAS pool size is process-wide, so the limit is reference-counted: concurrent callers share it and
the last one out restores the original size. The controller (which scans the loaded libraries) is made
once; entering and leaving costs about ten microseconds. threadpoolctl lets only the first thread that
ever set an OpenBLAS limit change it again (others are silently ignored); engines embed on worker threads,
so we release that claim around each change, under our own lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np  # noqa: F401  (loads OpenBLAS before the controller looks for it)

# An input of at most this many tokens (all texts of one embed call together) runs on one BLAS thread:
# a query is 10-30 tokens, a batch of 32 chat turns about 500.
SMALL_INPUT_TOKENS = 1024


class BlasLimiter:
    """`with limiter.one_thread():` runs the block with BLAS limited to one thread (shared, counted)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._controller: Any = None
        self._saved: list[tuple[Any, int]] = []
        self._depth = 0
        self.entered = 0  # how many blocks ran limited; tests and benches read it

    def _get_controller(self) -> Any:
        if self._controller is None:
            # imported here: only a forward pass limits BLAS, and the static table never runs one
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

            self._controller = ThreadpoolController()
        return self._controller

    @property
    def depth(self) -> int:
        """How many callers are inside `one_thread()` right now."""
        with self._lock:
            return self._depth

    def _libs(self) -> list[Any]:
        return list(self._get_controller().select(user_api="blas").lib_controllers)

    def blas_threads(self) -> list[int]:
        """The current thread count of every loaded BLAS library (empty when none was found)."""
        with self._lock:
            return [int(lib.get_num_threads()) for lib in self._libs()]

    @staticmethod
    def _set(lib: Any, threads: int) -> None:
        release = getattr(type(lib), "clear_controlling_thread", None)
        if release is not None:
            release(force=True)
        lib.set_num_threads(threads)
        if release is not None:
            release(force=True)

    @contextmanager
    def one_thread(self) -> Iterator[None]:
        """Run the block with every BLAS library limited to one thread (shared and counted, restored by the
        last caller out): small forward passes are faster without OpenBLAS threads spinning against each
        other."""
        with self._lock:
            if self._depth == 0:
                self._saved = [(lib, int(lib.get_num_threads())) for lib in self._libs()]
                for lib, _ in self._saved:
                    self._set(lib, 1)
            self._depth += 1
            self.entered += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    for lib, threads in self._saved:
                        self._set(lib, threads)
                    self._saved = []


BLAS = BlasLimiter()


def is_small(total_tokens: int, limit: int = SMALL_INPUT_TOKENS) -> bool:
    """Whether an input of `total_tokens` should run on one BLAS thread."""
    return total_tokens <= limit
