"""Prometheus metrics of one server, in its own registry (never the process-global one).

One PrometheusMetrics per server: several servers in one process (tests) never share or
collide. It records the interceptor's calls (RequestMetrics) and what the service reports
(the ServiceObserver port). Labels take only fixed names: services, methods, status codes,
operations, purposes, outcomes, exception class names.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)

from ..observing.port import WRITE_OPERATIONS, ServiceObserver

# From a cached GetCapabilities (under a millisecond) to a commit into a large memory (seconds).
REQUEST_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
)  # fmt: skip
# One query text on a local model (milliseconds) to a remote batch of 256 texts.
EMBEDDING_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)


class PrometheusMetrics(ServiceObserver):
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.requests = Counter(
            "powercontext_requests",
            "gRPC calls finished, by service, method and status code",
            ["service", "method", "code"],
            registry=registry,
        )
        self.request_seconds = Histogram(
            "powercontext_request_duration_seconds",
            "gRPC call duration, from handler lookup to the last response (streams: their life)",
            ["service", "method"],
            buckets=REQUEST_BUCKETS,
            registry=registry,
        )
        self.commits = Counter(
            "powercontext_commits",
            "Revisions committed, by write operation",
            ["operation"],
            registry=registry,
        )
        self.cas_conflicts = Counter(
            "powercontext_cas_conflicts",
            "Writes refused with ABORTED: the base revision was not the head",
            ["operation"],
            registry=registry,
        )
        self.follow_streams = Gauge(
            "powercontext_follow_streams_open",
            "Changes streams with follow: true currently open",
            registry=registry,
        )
        self.database_errors = Counter(
            "powercontext_database_errors",
            "Failures of the database driver, by backend and exception class",
            ["backend", "error"],
            registry=registry,
        )
        self.snapshot_retries = Counter(
            "powercontext_read_retries",
            "Searches read again over a plain snapshot: a commit moved their heads meanwhile",
            ["backend"],
            registry=registry,
        )
        self.embedding_seconds = Histogram(
            "powercontext_embedding_duration_seconds",
            "Embedding model calls, by purpose (commit, query, rebuild) and outcome (ok, error)",
            ["purpose", "outcome"],
            buckets=EMBEDDING_BUCKETS,
            registry=registry,
        )
        # Zero series from the start, so rate() and alerts see them before the first event.
        for operation in WRITE_OPERATIONS:
            self.commits.labels(operation)
            self.cas_conflicts.labels(operation)
        # The process_*, python_info and python_gc_* series the global registry would have.
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)

    # -- RequestMetrics (the interceptor) -------------------------------------------------------

    def observe_request(self, service: str, method: str, code: str, seconds: float) -> None:
        self.requests.labels(service, method, code).inc()
        self.request_seconds.labels(service, method).observe(seconds)

    # -- ServiceObserver (the service and its backend) ------------------------------------------

    def committed(self, operation: str) -> None:
        self.commits.labels(operation).inc()

    def cas_conflict(self, operation: str) -> None:
        self.cas_conflicts.labels(operation).inc()

    def database_error(self, backend: str, error: str) -> None:
        self.database_errors.labels(backend, error).inc()

    def snapshot_moved(self, backend: str) -> None:
        self.snapshot_retries.labels(backend).inc()

    def embedded(self, purpose: str, outcome: str, seconds: float) -> None:
        self.embedding_seconds.labels(purpose, outcome).observe(seconds)

    def follow_opened(self) -> None:
        self.follow_streams.inc()

    def follow_closed(self) -> None:
        self.follow_streams.dec()
