"""Prometheus metrics of one app, in a registry of its own (two apps in one process,
as in tests, do not mix their counts)."""

from __future__ import annotations

import sqlalchemy as sa
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import Scope

from tiller.messages import Usage
from tiller.server.admission import Admission
from tiller.store import Store
from tiller.store.tables import approvals, runs

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "tiller_http_requests",
            "HTTP requests answered, by route and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "tiller_http_request_seconds",
            "Time to answer an HTTP request (to its first byte for streams), by route.",
            ["route", "method"],
            registry=self.registry,
        )
        self.runs = Counter(
            "tiller_runs", "Runs ended, by outcome.", ["outcome"], registry=self.registry
        )
        self.tokens = Counter(
            "tiller_model_tokens",
            "Model tokens, by model and direction (input or output).",
            ["model", "direction"],
            registry=self.registry,
        )
        self.cost = Counter(
            "tiller_model_cost_usd",
            "Model cost in USD, by model.",
            ["model"],
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "tiller_runs_queued", "Runs waiting to start.", registry=self.registry
        )
        self.approvals_waiting = Gauge(
            "tiller_approvals_waiting",
            "Approvals waiting for a decision.",
            registry=self.registry,
        )
        self.executing = Gauge(
            "tiller_runs_executing",
            "Runs executing in this process (a run waiting for a person does not count).",
            registry=self.registry,
        )
        self.executing_limit = Gauge(
            "tiller_runs_executing_limit",
            "How many runs this process executes at once now (it follows the loop's lag).",
            registry=self.registry,
        )

    def answered(self, scope: Scope, status: int, seconds: float) -> None:
        """Count one HTTP request under its route's path template (`/runs/{run_id}`, so
        ids do not make a label each); a path no route matched counts as `unmatched`."""
        route = scope.get("route")
        template = getattr(route, "path", None) or "unmatched"
        method = scope.get("method", "")
        self.requests.labels(template, method, str(status)).inc()
        self.latency.labels(template, method).observe(seconds)

    def run_finished(self, model: str, status: str, usage: Usage | None) -> None:
        """Count a run that ended, and what its model calls used."""
        self.runs.labels(status).inc()
        if usage is None:
            return
        self.tokens.labels(model, "input").inc(usage.input_tokens)
        self.tokens.labels(model, "output").inc(usage.output_tokens)
        if usage.cost_usd:
            self.cost.labels(model).inc(usage.cost_usd)

    async def refresh(self, store: Store) -> None:
        """Read the gauges that are counts in the store (so every replica reports the same)."""
        async with store.database.read() as conn:
            queued = await conn.scalar(
                sa.select(sa.func.count()).select_from(runs).where(runs.c.status == "queued")
            )
            waiting = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(approvals)
                .where(approvals.c.status == "pending")
            )
        self.queue_depth.set(queued or 0)
        self.approvals_waiting.set(waiting or 0)

    def admission(self, gate: Admission) -> None:
        """Read the gauges of this process's admission gate."""
        self.executing.set(gate.running)
        self.executing_limit.set(gate.limit)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
