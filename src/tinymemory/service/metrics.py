"""Prometheus metrics: request counts and latency per route, and the size of the store.

Each app has its own registry, so several services in one process (tests) never share counters.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from tinymemory.api import TinyMemoryError
from tinymemory.engines import is_postgres_url

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class _StoreSize(Collector):
    """The store's bytes: what the engine reports (`async def store_bytes() -> int | None`, read just
    before a scrape), else the SQLite file and its WAL on disk; no gauge when neither is known (a
    postgresql:// store whose engine does not say)."""

    def __init__(self, db: str, engine: object | None) -> None:
        self.db = db
        self.engine = engine
        self.reported: int | None = None

    async def refresh(self) -> None:
        measure = getattr(self.engine, "store_bytes", None)
        if measure is None:
            return
        try:
            found = await measure()
        except TinyMemoryError:
            found = None  # the store does not answer: /readyz says so; the scrape still succeeds
        self.reported = found if isinstance(found, int) else None

    def _size(self) -> int | None:
        if getattr(self.engine, "store_bytes", None) is not None:
            return self.reported
        if is_postgres_url(self.db):
            return None
        size = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                size += os.path.getsize(self.db + suffix)
        return size

    def collect(self) -> Iterator[GaugeMetricFamily]:
        size = self._size()
        if size is None:
            return
        gauge = GaugeMetricFamily("tinymemory_store_bytes", "Bytes the store takes on disk")
        gauge.add_metric([], float(size))
        yield gauge


class ServiceMetrics:
    def __init__(self, db: str, engine: object | None = None) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "tinymemory_http_requests",
            "HTTP requests by route, method and status",
            ("route", "method", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "tinymemory_http_request_seconds",
            "HTTP request latency by route",
            ("route", "method"),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.gate_runs = Counter(
            "tinymemory_gate_runs",
            "Background runs of the shared-write gate by this process",
            registry=self.registry,
        )
        self.retention_runs = Counter(
            "tinymemory_retention_runs",
            "Background runs of the retention job by this process",
            registry=self.registry,
        )
        self.store_size = _StoreSize(db, engine)
        self.registry.register(self.store_size)

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        self.requests.labels(route, method, str(status)).inc()
        self.latency.labels(route, method).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    async def scrape(self) -> bytes:
        """The text of a scrape, after asking the engine for the store's size."""
        await self.store_size.refresh()
        return self.render()
