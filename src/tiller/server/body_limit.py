"""Request bodies over a size are refused with 413 before they are read whole."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tiller.server.problems import Problem, problem_response


class BodyTooLarge(HTTPException):
    """Raised while the body is read: the app's handlers answer it as a 413 problem."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"the request body is over {max_bytes} bytes")


class BodyLimit:
    """ASGI middleware: a declared `Content-Length` over `max_bytes` is answered 413 at
    once; a body without one is counted as it arrives and cut off past the limit."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if not started:
                await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = f"the request body is over {self.max_bytes} bytes"
        await problem_response(Problem("payload-too-large", detail))(scope, receive, send)
