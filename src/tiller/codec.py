"""JSON codec for messages and events.

Every message, content block, delta and event becomes a plain JSON object
tagged by `role` (messages) or `type` (everything else) and decodes back to an
equal object. Nested values are decoded by the field that holds them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from tiller.events import (
    EVENT_TYPES,
    AgentEvent,
    Delta,
    Event,
    RunStats,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from tiller.messages import (
    AssistantMessage,
    Content,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)

_CONTENT: dict[str, type[Any]] = {
    "text": TextContent,
    "image": ImageContent,
    "thinking": ThinkingContent,
    "tool_call": ToolCall,
}
_MESSAGES: dict[str, type[Any]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool_result": ToolResultMessage,
    "extension": ExtensionMessage,
}
_DELTAS: dict[str, type[Any]] = {
    "text_delta": TextDelta,
    "thinking_delta": ThinkingDelta,
    "tool_call_delta": ToolCallDelta,
}


def to_data(value: Any) -> Any:
    """Turn a message, event or any nesting of them into JSON-able data."""
    if isinstance(value, Event):
        data = {"type": value.type}
        data.update(_fields(value))
        return data
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields(value)
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    return value


def _fields(value: Any) -> dict[str, Any]:
    return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}


def _build(cls: type[Any], data: dict[str, Any], skip: str) -> Any:
    kwargs = {}
    for key, raw in data.items():
        if key == skip:
            continue
        decode = _FIELD_DECODERS.get(key)
        kwargs[key] = decode(raw) if decode is not None and raw is not None else raw
    return cls(**kwargs)


def _tagged(table: dict[str, type[Any]], tag: str, what: str) -> Callable[[dict[str, Any]], Any]:
    def decode(data: dict[str, Any]) -> Any:
        try:
            cls = table[data[tag]]
        except KeyError:
            raise ValueError(f"not a {what}: unknown or missing {tag!r} in {data!r}") from None
        return _build(cls, data, skip="")

    return decode


content_from_data: Callable[[dict[str, Any]], Content] = _tagged(_CONTENT, "type", "content block")
message_from_data: Callable[[dict[str, Any]], Message] = _tagged(_MESSAGES, "role", "message")
delta_from_data: Callable[[dict[str, Any]], Delta] = _tagged(_DELTAS, "type", "delta")


def event_from_data(data: dict[str, Any]) -> AgentEvent:
    try:
        cls = EVENT_TYPES[data["type"]]
    except KeyError:
        raise ValueError(f"not an event: unknown or missing 'type' in {data!r}") from None
    event: AgentEvent = _build(cls, data, skip="type")
    return event


_FIELD_DECODERS: dict[str, Callable[[Any], Any]] = {
    "content": lambda v: [content_from_data(b) for b in v],
    "usage": lambda v: Usage(**v),
    "stats": lambda v: _build(RunStats, v, skip=""),
    "result": lambda v: _build(ToolResult, v, skip=""),
    "partial_result": lambda v: _build(ToolResult, v, skip=""),
    "message": message_from_data,
    "messages": lambda v: [message_from_data(m) for m in v],
    "tool_results": lambda v: [message_from_data(m) for m in v],
    "delta": delta_from_data,
}


def dumps(value: Any) -> str:
    """Encode a message, event, or list of them as compact JSON."""
    return json.dumps(to_data(value), ensure_ascii=False, separators=(",", ":"))


def messages_from_json(text: str) -> list[Message]:
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("a saved history must be a JSON list of messages")
    return [message_from_data(m) for m in data]


def event_from_json(text: str) -> AgentEvent:
    return event_from_data(json.loads(text))
