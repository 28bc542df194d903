"""A value built once on first use, under a lock: how embedders defer loading their weights, so that
constructing one is free and concurrent first calls load it only once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._value: T | None = None

    @property
    def ready(self) -> bool:
        return self._value is not None

    def get(self) -> T:
        value = self._value
        if value is not None:
            return value
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value
