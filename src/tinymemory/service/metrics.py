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

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class _StoreSize(Collector):
    """The store's bytes on disk (the SQLite file and its WAL), read at scrape time."""

    def __init__(self, db: str) -> None:
        self.db = db

    def collect(self) -> Iterator[GaugeMetricFamily]:
        size = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                size += os.path.getsize(self.db + suffix)
        gauge = GaugeMetricFamily("tinymemory_store_bytes", "Bytes the store takes on disk")
        gauge.add_metric([], float(size))
        yield gauge


class ServiceMetrics:
    def __init__(self, db: str) -> None:
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
        self.registry.register(_StoreSize(db))

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        self.requests.labels(route, method, str(status)).inc()
        self.latency.labels(route, method).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
