"""OpenTelemetry traces: a span per request, and under the request that started it a
span per run, with a span per model call and per tool call inside.

Off by default, and then nothing here runs: no tracer, no span, no context to carry.
With `otlp_endpoint` set, spans go to that OTLP/HTTP collector in batches. A run
executes after the request that started it has been answered, so the run's span names
that request's span as its parent (kept by run id while the run is queued in this
process); a run picked up after a restart starts a trace of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Receive, Scope, Send

from tiller import __version__


def otlp_provider(endpoint: str) -> TracerProvider:
    """A provider that sends spans to the OTLP/HTTP collector at `endpoint`."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": "tiller"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    return provider


class Tracing:
    """The service's tracer; every method is a no-op when tracing is off."""

    def __init__(self, provider: TracerProvider | None) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("tiller.server", __version__) if provider else None
        self._run_parents: dict[str, Context] = {}

    @property
    def on(self) -> bool:
        return self.tracer is not None

    def run_queued(self, run_id: str) -> None:
        """The request being answered started the run: its span will be the run's parent."""
        if self.tracer is not None:
            self._run_parents[run_id] = trace.set_span_in_context(trace.get_current_span())

    @contextmanager
    def run(self, run_id: str, session_id: str) -> Iterator[Span | None]:
        if self.tracer is None:
            yield None
            return
        parent = self._run_parents.pop(run_id, None)
        attributes = {"tiller.run_id": run_id, "tiller.session_id": session_id}
        with self.tracer.start_as_current_span("run", parent, attributes=attributes) as span:
            yield span

    def start(self, name: str, parent: Span | None, **attributes: Any) -> Span | None:
        """A span under `parent` (a run's), ended by `end`; None when tracing is off."""
        if self.tracer is None or parent is None:
            return None
        context = trace.set_span_in_context(parent)
        return self.tracer.start_span(name, context, attributes=attributes)

    @staticmethod
    def end(span: Span | None, error: str | None = None) -> None:
        if span is None:
            return
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end()

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.shutdown()


class RequestSpans:
    """ASGI middleware: a server span per HTTP request, named by its route."""

    def __init__(self, app: ASGIApp, *, tracing: Tracing) -> None:
        self.app = app
        self.tracing = tracing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tracer = self.tracing.tracer
        if tracer is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "")
        with tracer.start_as_current_span(
            f"{method} {scope.get('path', '')}", kind=SpanKind.SERVER
        ) as span:
            status = 500

            async def send_status(message: Any) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

            try:
                await self.app(scope, receive, send_status)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if route:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.response.status_code", status)
                if status >= 500:
                    span.set_status(Status(StatusCode.ERROR))
