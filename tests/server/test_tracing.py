"""Traces: request → run → model calls and tool calls, checked with the SDK's
in-memory exporter; nothing is traced when tracing is off."""

from __future__ import annotations

import asyncio

import httpx
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.server.live_server import live_server
from tiller.server.app import create_app
from tiller.server.main import prepare
from tiller.server.settings import ServerSettings


async def test_a_message_traces_its_request_run_model_and_tool_calls(
    settings: ServerSettings,
) -> None:
    settings = ServerSettings(**{**settings.model_dump(), "approve_effects": ()})
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    key = await prepare(settings)
    app = create_app(settings, tracer_provider=provider)
    async with live_server(settings, app) as live:
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=live.base_url, headers=headers) as api:
            body = {"title": "t", "model": "svc:writer", "tools": ["write_file"]}
            session = (await api.post("/sessions", json=body)).json()
            sent = await api.post(f"/sessions/{session['id']}/messages", json={"text": "hi"})
            run_id = sent.json()["id"]
            for _ in range(500):
                if (await api.get(f"/runs/{run_id}")).json()["status"] == "completed":
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.1)  # the run's span ends just after the run is stored
    spans = exporter.get_finished_spans()
    by_name: dict[str, list[ReadableSpan]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    (request,) = by_name["POST /sessions/{session_id}/messages"]
    (run,) = by_name["run"]
    assert run.attributes is not None
    assert run.attributes["tiller.run_id"] == run_id
    assert run.parent is not None
    assert request.context is not None
    assert run.parent.span_id == request.context.span_id
    assert run.context is not None
    models = by_name["model call"]
    (tool,) = by_name["tool call"]
    assert len(models) == 2
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in models)
    assert tool.parent is not None
    assert tool.parent.span_id == run.context.span_id
    assert tool.attributes is not None
    assert tool.attributes["tiller.tool"] == "write_file"
    assert request.attributes is not None
    assert request.attributes["http.route"] == "/sessions/{session_id}/messages"


async def test_with_tracing_off_nothing_is_traced(settings: ServerSettings) -> None:
    app = create_app(settings)
    async with live_server(settings, app) as live:
        assert (await live.client.get("/health")).status_code == 200
        assert not app.state.services.engine.tracing.on
