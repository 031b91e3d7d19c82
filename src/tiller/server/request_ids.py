"""Each request gets an id, and each request one structured log line.

The id comes from the client's `X-Request-ID` when it is a plain token (letters,
digits, `-`, `_`; at most 64), else it is made here. It is answered in the
`X-Request-ID` header, put in every problem body and every log line of the request.
An exception no handler answered is logged with its traceback and answered as an
`internal` problem; a client never sees the traceback.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("tiller.server.access")

_REQUEST_ID: ContextVar[str | None] = ContextVar("tiller_request_id", default=None)
_TOKEN = re.compile(r"[A-Za-z0-9_\-]{1,64}")


def current_request_id() -> str | None:
    """The id of the request being answered in this task (None outside one)."""
    return _REQUEST_ID.get()


class RequestIds:
    """ASGI middleware: the request id, the access log line, the last-resort error."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        on_error: Callable[[], ASGIApp],
        on_answered: Callable[[Scope, int, float], None] | None = None,
    ) -> None:
        self.app = app
        self.on_error = on_error  # the answer to an exception nothing else answered
        self.on_answered = on_answered  # (scope, status, seconds): for the metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                token = _REQUEST_ID.set(_id_of(scope))
                try:
                    await self.app(scope, receive, send)
                finally:
                    _REQUEST_ID.reset(token)
                return
            await self.app(scope, receive, send)
            return
        request_id = _id_of(scope)
        token = _REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception(
                "unexpected error", extra={"request_id": request_id, "path": scope.get("path")}
            )
            if not response_started:
                await self.on_error()(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": scope.get("method"),
                    "path": scope.get("path"),
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                },
            )
            if self.on_answered is not None:
                self.on_answered(scope, status, seconds)
            _REQUEST_ID.reset(token)


def _id_of(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            given: str = value.decode("latin-1")
            if _TOKEN.fullmatch(given):
                return given
    return uuid.uuid4().hex
