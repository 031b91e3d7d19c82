"""A fake OpenAI API on a real socket: Chat Completions and Responses, streaming and not.

Tests script the answers, one plan per request, and read back what the client sent:

    with OpenAIServer() as server:
        server.add(ChatStream().text("Hel", "lo").finish("stop").usage(10, 2).stream())
        model = resolve_model("openai:gpt-4.1", base_url=server.url, api_key="k")
        ...
        assert server.requests[0].body["messages"] == [...]

A plan is a `Stream` (an SSE body written piece by piece, optionally cut off
mid-way), a `Reply` (an HTTP response with a JSON body, e.g. an error), or a
function of the recorded request returning one of those (for answers that depend
on what was sent). The chunk and event shapes follow OpenAI's API reference:
`chat.completion.chunk` objects ending with `data: [DONE]`, and the Responses
API's typed events (`response.created` ... `response.completed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeAlias

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tests.servers.live import LiveServer
from tests.servers.openai_streams import (
    ChatStream,
    Reply,
    ResponsesStream,
    Stream,
    chat_text,
    error_body,
    sse_data,
    sse_event,
)

__all__ = [
    "ChatStream",
    "OpenAIServer",
    "Plan",
    "Recorded",
    "Reply",
    "ResponsesStream",
    "Stream",
    "chat_text",
    "error_body",
    "sse_data",
    "sse_event",
]


@dataclass(slots=True)
class Recorded:
    """One request as the server received it. Header names are lower-cased."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


Plan: TypeAlias = Stream | Reply | Callable[[Recorded], "Stream | Reply"]


# ── the server ──────────────────────────────────────────────────────────────


class _StreamResponse(Response):
    """Writes `Stream.pieces` one by one; stops early when the client goes away."""

    def __init__(self, plan: Stream, on_disconnect: Callable[[], None]) -> None:
        super().__init__(media_type="text/event-stream")
        self.plan = plan
        self.on_disconnect = on_disconnect

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gone = asyncio.Event()

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            self.on_disconnect()

        watcher = asyncio.ensure_future(watch())
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache"),
                    ],
                }
            )
            for piece in self.plan.pieces:
                if self.plan.delay_s:
                    await asyncio.sleep(self.plan.delay_s)
                if gone.is_set():
                    return
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            if self.plan.cut:
                # Returning before the final body message makes the server drop the
                # connection without the chunked terminator: a cut mid-stream.
                return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher


class OpenAIServer:
    """Serves `/v1/chat/completions` and `/v1/responses` from a queue of plans."""

    def __init__(self, plans: Iterable[Plan] = ()) -> None:
        self.plans: deque[Plan] = deque(plans)
        self.requests: list[Recorded] = []
        self.disconnects = 0
        self._lock = threading.Lock()
        self._live: LiveServer | None = None
        self.url = ""  # the base URL clients use, ending in /v1

    def add(self, *plans: Plan) -> None:
        self.plans.extend(plans)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    def app(self) -> Starlette:
        routes = [
            Route("/v1/chat/completions", self._handle, methods=["POST"]),
            Route("/v1/responses", self._handle, methods=["POST"]),
        ]
        return Starlette(routes=routes)

    def _disconnected(self) -> None:
        with self._lock:
            self.disconnects += 1

    async def _handle(self, request: Request) -> Response:
        body = json.loads(await request.body())
        recorded = Recorded(
            request.url.path, {k.lower(): v for k, v in request.headers.items()}, body
        )
        with self._lock:
            self.requests.append(recorded)
            plan = self.plans.popleft() if self.plans else None
        if plan is None:
            return JSONResponse(
                error_body("the test server has no plan left for this request", "test_error"),
                status_code=418,
            )
        if callable(plan):
            plan = plan(recorded)
        if isinstance(plan, Reply):
            content = json.dumps(plan.body) if isinstance(plan.body, dict) else plan.body
            return Response(
                content,
                status_code=plan.status,
                headers=plan.headers,
                media_type="application/json",
            )
        if not body.get("stream") and plan.final is not None:
            return JSONResponse(plan.final)
        return _StreamResponse(plan, self._disconnected)

    def __enter__(self) -> OpenAIServer:
        self._live = LiveServer(self.app()).__enter__()
        self.url = self._live.url + "/v1"
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.__exit__(exc_type, exc, tb)
