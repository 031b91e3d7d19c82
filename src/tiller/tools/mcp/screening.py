"""Checking the tools an MCP server lists, before the SDK or a model sees them.

The SDK validates a `tools/list` answer as a whole: one tool with a broken
schema would make every tool of that server unusable. So the listing is
screened on its way in, at the transport's streams: each tool that is not a
well-formed tool with a valid JSON Schema for an object is dropped and
reported (`SkippedTool`), and the rest go on. A model never sees a schema that
cannot be validated against.

A server that sends something other than a JSON-RPC message (a stdio server
printing a banner or logs on stdout) breaks the protocol: the session ends at
once with one line naming the server and what it sent.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from mcp.client._transport import ReadStream, TransportStreams, WriteStream
    from mcp.shared.message import SessionMessage

log = logging.getLogger("tiller.mcp")

# What every provider accepts as a tool name (OpenAI is the strictest).
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME_LENGTH = 64
_SHOWN_CHARS = 120  # of what a misbehaving server sent, in its one-line error


@dataclass(slots=True, frozen=True)
class SkippedTool:
    """A tool a server listed that Tiller does not offer, and why."""

    server: str
    name: str
    reason: str

    def __str__(self) -> str:
        return f"MCP server {self.server!r}: tool {self.name!r} skipped: {self.reason}"


def schema_problem(schema: object) -> str | None:
    """Why `schema` cannot be a tool's input schema, or None when it can."""
    if not isinstance(schema, dict):
        return f"its inputSchema is {type(schema).__name__}, not a JSON object"
    if schema.get("type") != "object":
        return (
            f'its inputSchema must have "type": "object" at the root (got {schema.get("type")!r})'
        )
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]

    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return f"its inputSchema is not valid JSON Schema at {where}: {exc.message}"
    return None


def tool_problem(raw: object) -> str | None:
    """Why a raw `tools/list` entry cannot be offered, or None when it can."""
    if not isinstance(raw, dict):
        return "the entry is not a JSON object"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return "it has no name"
    problem = schema_problem(raw.get("inputSchema"))
    if problem is not None:
        return problem
    from mcp.types import Tool
    from pydantic import ValidationError

    try:
        Tool.model_validate(raw, by_name=False)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(entry)"
        return f"the entry is malformed at {where}: {first['msg']}"
    return None


def screen_listing(result: dict[str, Any], server: str, skipped: list[SkippedTool]) -> None:
    """Drop the unusable tools from a raw `tools/list` result, in place, recording why."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return
    kept: list[Any] = []
    for raw in tools:
        problem = tool_problem(raw)
        if problem is None:
            kept.append(raw)
            continue
        name = raw.get("name") if isinstance(raw, dict) else None
        entry = SkippedTool(server, name if isinstance(name, str) else "?", problem)
        log.warning("%s", entry)
        skipped.append(entry)
    result["tools"] = kept


# What the SDK logs, traceback and all, when a server sends something that is not a
# JSON-RPC message. The connection reports that itself, in one line naming the server,
# so these records go to `tiller.mcp` at DEBUG instead (with the traceback).
_SDK_PARSE_FAILURES = {
    "mcp.client.stdio": frozenset({"Failed to parse JSONRPC message from server"}),
    "mcp.client.streamable_http": frozenset(
        {"Error parsing SSE message", "Error parsing JSON response"}
    ),
}


class _ReportedByTheConnection(logging.Filter):
    def __init__(self, messages: frozenset[str]) -> None:
        super().__init__()
        self.messages = messages

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg not in self.messages:
            return True
        log.debug("from the MCP SDK: %s", record.getMessage(), exc_info=record.exc_info)
        return False


def quiet_sdk_parse_failures() -> None:
    """Route the SDK's parse-failure records to `tiller.mcp` at DEBUG (once per process)."""
    for name, messages in _SDK_PARSE_FAILURES.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _ReportedByTheConnection) for f in logger.filters):
            logger.addFilter(_ReportedByTheConnection(messages))


def safe_tool_name(name: str, prefix: str = "") -> str:
    """`prefix + name` with characters providers refuse replaced by `_`, at most 64 long."""
    return _SAFE_NAME.sub("_", prefix + name)[:MAX_NAME_LENGTH]


# ── the streams ─────────────────────────────────────────────────────────────


def what_was_sent(error: Exception) -> str:
    """What a server sent that is not a JSON-RPC message, from the SDK's parse error, in
    a short quoted form for a one-line message."""
    value: Any = None
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            value = errors(include_url=False)[0].get("input")
        except Exception:  # not a pydantic error after all
            value = None
    if value is None:
        text = str(error)
    elif isinstance(value, str | bytes):
        text = value.decode(errors="replace") if isinstance(value, bytes) else value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    shown = repr(text[:_SHOWN_CHARS])
    return shown + "…" if len(text) > _SHOWN_CHARS else shown


@asynccontextmanager
async def screened(
    transport: Any,
    on_listing: Callable[[dict[str, Any]], None],
    on_garbage: Callable[[Exception], None],
) -> AsyncIterator[TransportStreams]:
    """Wrap an SDK transport so every `tools/list` result passes `on_listing` first.

    Something the server sent that is not a JSON-RPC message goes to `on_garbage`
    and ends the session there (the server broke the protocol, so nothing it sends
    afterwards can be trusted), rather than being skipped while a request waits
    for an answer that will not come.
    """
    async with transport as (read, write):
        listing_ids: set[Any] = set()
        yield (
            _ScreenedRead(read, listing_ids, on_listing, on_garbage),
            _NotingWrite(write, listing_ids),
        )


class _NotingWrite:
    """Notes the ids of outgoing `tools/list` requests."""

    def __init__(self, inner: WriteStream[SessionMessage], listing_ids: set[Any]) -> None:
        self._inner = inner
        self._ids = listing_ids

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if getattr(message, "method", None) == "tools/list" and hasattr(message, "id"):
            self._ids.add(message.id)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _NotingWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class _ScreenedRead:
    """Passes messages through, screening the results of noted `tools/list` requests."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        listing_ids: set[Any],
        on_listing: Callable[[dict[str, Any]], None],
        on_garbage: Callable[[Exception], None],
    ) -> None:
        self._inner = inner
        self._ids = listing_ids
        self._on_listing = on_listing
        self._on_garbage = on_garbage

    @property
    def last_context(self) -> Any:
        # The SDK's dispatcher runs handlers in the sender's context when a stream has one.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        if isinstance(item, Exception):  # a line that is not a JSON-RPC message
            import anyio

            self._on_garbage(item)
            raise anyio.EndOfStream
        message = getattr(item, "message", None)
        request_id = getattr(message, "id", None)
        if request_id is not None and request_id in self._ids:
            self._ids.discard(request_id)
            result = getattr(message, "result", None)
            if isinstance(result, dict):
                self._on_listing(result)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _ScreenedRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _ScreenedRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)
