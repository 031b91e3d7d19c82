"""A Messages API server (`POST /v1/messages`) on a real socket, for the Anthropic provider.

Tests script one answer per request and read back what the client sent:

    api = AnthropicAPI(api_key="test-key")
    with api.serving():
        api.script(Reply([Text("Hello", piece=2)]))
        model = AnthropicModel("claude-sonnet-4-5", api_key="test-key", base_url=api.url)
        ...
        assert api.requests[0].body["messages"] == [...]

An answer is a `Reply` (content blocks streamed as server-sent events, or sent as
one JSON message when the request did not ask for a stream), a `Failure` (an
HTTP error with Anthropic's error body), or a function of the received request
returning one of those (for answers that depend on what was sent).

The event shapes follow Anthropic's streaming reference: `message_start` (a
message with empty content and the input usage), `ping`, per block
`content_block_start` / `content_block_delta`... / `content_block_stop`,
`message_delta` (stop reason, cumulative output usage), `message_stop`; an
`error` event for failures inside a stream. Like the real API, the server checks
the key (401; `x-api-key`, or `Authorization: Bearer` as SDK 2.x sends it) and
refuses malformed conversations (400 `invalid_request_error`): roles that do not
alternate, a `tool_use` without its `tool_result` right after (or the reverse),
empty text blocks, unsigned thinking, more than four cache breakpoints.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.servers.live import LiveServer

API_VERSION_HEADER = "anthropic-version"
MAX_CACHE_BREAKPOINTS = 4

# ── what a reply is made of ─────────────────────────────────────────────────


def _pieces(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass(slots=True)
class Text:
    """A text block, streamed in deltas of `piece` characters (one delta when 0)."""

    text: str
    piece: int = 0


@dataclass(slots=True)
class Thinking:
    text: str
    signature: str
    piece: int = 0


@dataclass(slots=True)
class RedactedThinking:
    data: str


@dataclass(slots=True)
class ToolUse:
    """A tool call whose argument JSON streams as the given fragments, exactly."""

    id: str
    name: str
    fragments: list[str]

    @classmethod
    def of(cls, id: str, name: str, arguments: dict[str, Any], piece: int = 0) -> ToolUse:
        return cls(id, name, _pieces(json.dumps(arguments), piece))


Block: TypeAlias = Text | Thinking | RedactedThinking | ToolUse


@dataclass(slots=True)
class Reply:
    """One assistant response.

    `end`: `message_stop` (a whole stream), `eof` (the body ends cleanly without
    `message_stop`) or `cut` (the connection drops after `cut_after` events, or after
    the last block, without ending the chunked body). `error` is an in-stream error
    (`{"type": "overloaded_error", "message": "Overloaded"}`) sent after the blocks,
    ending the stream. `delay_s` is slept before each event. `split_utf8` writes each
    event holding a multi-byte character in two writes split inside that character.
    `extra_events` go right after `ping` (event types a client must skip).
    """

    blocks: list[Block]
    stop_reason: str | None = "end_turn"
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 12, "output_tokens": 7})
    stop_details: dict[str, Any] | None = None
    end: Literal["message_stop", "eof", "cut"] = "message_stop"
    cut_after: int | None = None
    error: dict[str, str] | None = None
    delay_s: float = 0.0
    split_utf8: bool = False
    extra_events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


@dataclass(slots=True)
class Failure:
    """An HTTP error with Anthropic's error body; `raw_body` replaces that body as is."""

    status: int
    error_type: str = "api_error"
    message: str = "Internal server error"
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None


@dataclass(slots=True)
class Received:
    """One request as the server got it (header names lower-cased), and how its answer went."""

    headers: dict[str, str]
    body: dict[str, Any]
    events_sent: int = 0
    stream_completed: bool = False  # every event was written
    stream_closed: bool = False  # the body is over: completed, cut, or the client left

    @property
    def api_key(self) -> str | None:
        """The key sent: `x-api-key`, or a bearer token (what SDK 2.x sends)."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return token if scheme.lower() == "bearer" else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.body.get("messages", [])
        return messages


Answer: TypeAlias = Reply | Failure
Script: TypeAlias = Answer | Callable[[Received], Answer]


# ── events ──────────────────────────────────────────────────────────────────


def sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _block_events(index: int, block: Block) -> list[tuple[str, dict[str, Any]]]:
    def delta(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}

    if isinstance(block, Text):
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [
            delta({"type": "text_delta", "text": p}) for p in _pieces(block.text, block.piece)
        ]
    elif isinstance(block, Thinking):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            delta({"type": "thinking_delta", "thinking": p})
            for p in _pieces(block.text, block.piece)
        ]
        deltas.append(delta({"type": "signature_delta", "signature": block.signature}))
    elif isinstance(block, RedactedThinking):
        start, deltas = {"type": "redacted_thinking", "data": block.data}, []
    else:
        start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        deltas = [delta({"type": "input_json_delta", "partial_json": f}) for f in block.fragments]
    return [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        ),
        *deltas,
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def reply_events(reply: Reply, model: str, message_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The whole event sequence of `reply`, in Anthropic's streaming format."""
    usage = reply.usage
    start_usage = {
        "input_tokens": usage.get("input_tokens", 0),
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("ping", {"type": "ping"}),
        *reply.extra_events,
    ]
    for index, block in enumerate(reply.blocks):
        events += _block_events(index, block)
    if reply.error is not None:
        events.append(("error", {"type": "error", "error": reply.error}))
        return events
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": reply.stop_reason,
                    "stop_sequence": None,
                    "stop_details": reply.stop_details,
                },
                "usage": {"output_tokens": usage.get("output_tokens", 0)},
            },
        )
    )
    if reply.end == "message_stop":
        events.append(("message_stop", {"type": "message_stop"}))
    return events


def reply_message(reply: Reply, model: str, message_id: str) -> dict[str, Any]:
    """`reply` as the one JSON message a non-streaming request gets."""
    content: list[dict[str, Any]] = []
    for block in reply.blocks:
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, Thinking):
            content.append(
                {"type": "thinking", "thinking": block.text, "signature": block.signature}
            )
        elif isinstance(block, RedactedThinking):
            content.append({"type": "redacted_thinking", "data": block.data})
        else:
            arguments = "".join(block.fragments)
            content.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": block.name,
                    "input": json.loads(arguments) if arguments else {},
                }
            )
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "model": model,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.usage.get("input_tokens", 0),
            "output_tokens": reply.usage.get("output_tokens", 0),
            "cache_creation_input_tokens": reply.usage.get("cache_creation_input_tokens", 0),
            "cache_read_input_tokens": reply.usage.get("cache_read_input_tokens", 0),
        },
    }


def _split_inside_character(data: bytes) -> list[bytes]:
    """`data` in two pieces split after the first byte of its first multi-byte character."""
    for i, byte in enumerate(data):
        if byte >= 0xC0:  # the lead byte of a multi-byte UTF-8 sequence
            return [data[: i + 1], data[i + 1 :]]
    return [data]


# ── request checks, as the real API makes them ──────────────────────────────


def conversation_problem(body: dict[str, Any]) -> str | None:
    """What the real API would refuse in `body` (its 400 message), or None."""
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    messages = body["messages"]
    if not messages:
        return "messages: at least one message is required"
    if messages[0]["role"] != "user":
        return "messages.0.role: the first message must use the user role"
    breakpoints = _count_cache_control(body)
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        return (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {breakpoints}."
        )
    previous_calls: list[str] = []
    for n, message in enumerate(messages):
        if n and message["role"] == messages[n - 1]["role"]:
            return f"messages.{n}: roles must alternate between 'user' and 'assistant'"
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        problem = _blocks_problem(n, content, previous_calls)
        if problem:
            return problem
        previous_calls = [b["id"] for b in content if b["type"] == "tool_use"]
    if previous_calls:
        return "the conversation ends with tool_use blocks that have no tool_result"
    return None


def _blocks_problem(n: int, content: list[dict[str, Any]], calls: list[str]) -> str | None:
    results = [b["tool_use_id"] for b in content if b["type"] == "tool_result"]
    missing = [c for c in calls if c not in results]
    if missing:
        return (
            f"messages.{n}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}"
        )
    seen_other = False
    for m, block in enumerate(content):
        kind = block["type"]
        where = f"messages.{n}.content.{m}"
        if kind == "tool_result":
            if block["tool_use_id"] not in calls:
                return f"{where}: unexpected `tool_use_id` found in `tool_result` blocks"
            if seen_other:
                return f"{where}: tool_result blocks must come before other content"
        else:
            seen_other = True
        if kind == "text" and not block.get("text"):
            return "messages: text content blocks must be non-empty"
        if kind == "thinking" and not block.get("signature"):
            return f"{where}.thinking.signature: Field required"
    return None


def _count_cache_control(body: dict[str, Any]) -> int:
    count = 0
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for b in system if "cache_control" in b)
    count += sum(1 for t in body.get("tools", []) if "cache_control" in t)
    for message in body["messages"]:
        if isinstance(message["content"], list):
            count += sum(1 for b in message["content"] if "cache_control" in b)
    return count


# ── the server ──────────────────────────────────────────────────────────────


class ConnectionCut(Exception):
    """Raised inside a streamed body: uvicorn then drops the connection mid-body."""


class _QuietCuts(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionCut)


logging.getLogger("uvicorn.error").addFilter(_QuietCuts())


class AnthropicAPI:
    """The Messages API, scripted. `requests` holds every request received, in order."""

    def __init__(self, api_key: str = "test-key") -> None:
        self.api_key = api_key
        self.requests: list[Received] = []
        self.utf8_splits = 0  # writes that ended inside a UTF-8 character
        self._scripts: deque[Script] = deque()
        self.url = ""
        self.app = Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])])

    def reset(self) -> None:
        """Forget requests and unused answers (to reuse one server across tests)."""
        self.requests.clear()
        self._scripts.clear()
        self.utf8_splits = 0

    def script(self, *answers: Script) -> None:
        """Queue answers: each request takes the next one."""
        self._scripts.extend(answers)

    @property
    def remaining(self) -> int:
        return len(self._scripts)

    @contextlib.contextmanager
    def serving(self) -> Iterator[AnthropicAPI]:
        with LiveServer(self.app) as live:
            self.url = live.url
            yield self

    async def _messages(self, request: Request) -> Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        body = json.loads(await request.body())
        received = Received(headers, body)
        self.requests.append(received)
        number = len(self.requests)
        if received.api_key != self.api_key:
            return _error(Failure(401, "authentication_error", "invalid x-api-key"))
        if API_VERSION_HEADER not in headers:
            return _error(
                Failure(400, "invalid_request_error", "anthropic-version: header is required")
            )
        problem = conversation_problem(body)
        if problem is not None:
            return _error(Failure(400, "invalid_request_error", problem))
        if not self._scripts:
            return _error(Failure(500, "api_error", f"no answer scripted for request #{number}"))
        script = self._scripts.popleft()
        answer = script(received) if callable(script) else script
        if isinstance(answer, Failure):
            return _error(answer)
        model, message_id = str(body["model"]), f"msg_{number:04d}"
        if not body.get("stream"):
            return JSONResponse(reply_message(answer, model, message_id))
        events = reply_events(answer, model, message_id)
        return StreamingResponse(
            self._stream(answer, events, received),
            media_type="text/event-stream",
            headers={"request-id": f"req_{number:04d}", "cache-control": "no-cache"},
        )

    async def _stream(
        self, reply: Reply, events: list[tuple[str, dict[str, Any]]], received: Received
    ) -> AsyncIterator[bytes]:
        limit = len(events) if reply.cut_after is None else reply.cut_after
        try:
            for name, data in events[:limit]:
                if reply.delay_s:
                    await asyncio.sleep(reply.delay_s)
                chunk = sse(name, data)
                pieces = _split_inside_character(chunk) if reply.split_utf8 else [chunk]
                for n, piece in enumerate(pieces):
                    if n:
                        self.utf8_splits += 1
                        await asyncio.sleep(0.003)  # let the first half leave on its own
                    yield piece
                received.events_sent += 1
            if reply.end == "cut":
                raise ConnectionCut("the test server drops the connection mid-body")
            received.stream_completed = True
        finally:
            received.stream_closed = True


def _error(failure: Failure) -> Response:
    headers = {"request-id": "req_error", **failure.headers}
    if failure.raw_body is not None:
        return Response(failure.raw_body, status_code=failure.status, headers=headers)
    body = {"type": "error", "error": {"type": failure.error_type, "message": failure.message}}
    return JSONResponse(body, status_code=failure.status, headers=headers)
