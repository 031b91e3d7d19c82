"""Messages API stream events (decoded JSON) to Tiller deltas and message content.

One `ResponseReader` reads one response: each `content_block_delta` becomes a
delta right away; blocks are kept by index for the finished message. Tool-call
argument JSON is parsed once, when the message is built (`parse_tool_call` keeps
text that does not parse as `invalid_arguments`). An `error` event raises the
classified `ModelError`; whether `message_stop` arrived is left to the caller,
since a stream that ends without it is incomplete.
"""

from __future__ import annotations

import json
from typing import Any

from tiller.errors import ModelError
from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import Content, StopReason, TextContent, ThinkingContent, Usage
from tiller.models.assembly import parse_tool_call
from tiller.models.http_failures import classify_stream_error

PROVIDER = "anthropic"

# Anthropic stop reason -> Tiller's. `pause_turn` is not here: the model
# continues a paused turn itself. `model_context_window_exceeded` means the answer
# filled the context window and was cut short, which is what `length` says.
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
}


class _Block:
    """One content block as it streams: its kind, text pieces and identity."""

    __slots__ = ("id", "kind", "name", "parts", "raw", "signature")

    def __init__(self, kind: str, raw: dict[str, Any]) -> None:
        self.kind = kind
        self.raw = raw  # the `content_block` of `content_block_start`
        self.parts: list[str] = []
        self.signature: str | None = None
        self.id = ""
        self.name = ""


class ResponseReader:
    """Reads the events of one streamed response.

    `offset` shifts block indices, so a continued (paused) turn's blocks follow
    the ones already streamed.
    """

    __slots__ = (
        "_blocks",
        "_offset",
        "finished",
        "model",
        "stop_details",
        "stop_reason",
        "usage",
    )

    def __init__(self, offset: int = 0) -> None:
        self._offset = offset
        self._blocks: dict[int, _Block] = {}
        self.finished = False
        self.model = ""
        self.stop_reason: str | None = None
        self.stop_details: dict[str, Any] | None = None
        self.usage = Usage()

    @property
    def block_count(self) -> int:
        return len(self._blocks)

    def feed(self, event: dict[str, Any]) -> Delta | None:
        """Take one event; return the delta it carries, if any."""
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event["index"], event["delta"])
        if kind == "content_block_start":
            return self._start(event["index"], event["content_block"])
        if kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            self.stop_details = delta.get("stop_details") or self.stop_details
            self._take_usage(event.get("usage"))
        elif kind == "message_start":
            message = event.get("message") or {}
            self.model = message.get("model") or ""
            self._take_usage(message.get("usage"))
        elif kind == "message_stop":
            self.finished = True
        elif kind == "error":
            raise stream_error(event)
        # `content_block_stop`, `ping` and event types added later carry nothing we need.
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> Delta | None:
        block = self._blocks.get(index)
        if block is None:
            return None
        kind = delta.get("type")
        at = index + self._offset
        if kind == "text_delta":
            text = delta["text"]
            block.parts.append(text)
            return TextDelta(at, text)
        if kind == "input_json_delta":
            fragment = delta["partial_json"]
            block.parts.append(fragment)
            if block.kind != "tool_use":
                return None  # a server tool's input: replayed, not run here
            return ToolCallDelta(at, fragment)
        if kind == "thinking_delta":
            thinking = delta["thinking"]
            block.parts.append(thinking)
            return ThinkingDelta(at, thinking)
        if kind == "signature_delta":
            block.signature = delta["signature"]
            return ThinkingDelta(at, "", signature=block.signature)
        return None  # citations and delta types added later

    def _start(self, index: int, raw: dict[str, Any]) -> Delta | None:
        kind = raw.get("type", "")
        block = self._blocks[index] = _Block(kind, raw)
        if kind == "text":
            if raw.get("text"):
                block.parts.append(raw["text"])
                return TextDelta(index + self._offset, raw["text"])
        elif kind == "thinking":
            if raw.get("thinking"):
                block.parts.append(raw["thinking"])
            block.signature = raw.get("signature") or None
        elif kind == "redacted_thinking":
            block.signature = raw.get("data")
        elif kind == "tool_use":
            block.id = raw.get("id", "")
            block.name = raw.get("name", "")
            # The call shows up at once; its arguments follow as fragments.
            return ToolCallDelta(index + self._offset, "", id=block.id, name=block.name)
        return None

    def _take_usage(self, usage: dict[str, Any] | None) -> None:
        """Counts in `message_delta` are cumulative: a given value replaces the earlier one."""
        if not usage:
            return
        u = self.usage
        if (value := usage.get("input_tokens")) is not None:
            u.input_tokens = value
        if (value := usage.get("output_tokens")) is not None:
            u.output_tokens = value
        if (value := usage.get("cache_read_input_tokens")) is not None:
            u.cache_read_tokens = value
        if (value := usage.get("cache_creation_input_tokens")) is not None:
            u.cache_write_tokens = value

    # ── results ─────────────────────────────────────────────────────────────

    def content(self) -> list[Content]:
        """The blocks Tiller represents, in order: text, thinking, tool calls."""
        out: list[Content] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block.kind
            if kind == "text":
                text = "".join(block.parts)
                if text:
                    out.append(TextContent(text))
            elif kind == "thinking":
                out.append(ThinkingContent("".join(block.parts), block.signature))
            elif kind == "redacted_thinking":
                out.append(ThinkingContent("", block.signature, redacted=True))
            elif kind == "tool_use":
                out.append(parse_tool_call(block.id, block.name, _arguments(block)))
        return out

    def replay(self) -> list[dict[str, Any]]:
        """This response's content as request blocks, to continue a paused turn.

        Server-tool blocks, which Tiller does not represent, are sent back as they came.
        """
        out: list[dict[str, Any]] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block.kind
            if kind == "text":
                text = "".join(block.parts)
                if text:
                    out.append({"type": "text", "text": text})
            elif kind == "thinking":
                out.append(
                    {
                        "type": "thinking",
                        "thinking": "".join(block.parts),
                        "signature": block.signature or "",
                    }
                )
            elif kind in ("tool_use", "server_tool_use"):
                call = parse_tool_call(block.id, block.name, _arguments(block))
                out.append({**block.raw, "input": call.arguments})
            else:
                out.append(block.raw)
        return out

    def refusal_note(self) -> str | None:
        """Why the model declined, when the API said (`stop_details`)."""
        if self.stop_reason != "refusal":
            return None
        details = self.stop_details or {}
        category = details.get("category")
        explanation = details.get("explanation")
        note = "the model declined to answer"
        if category:
            note += f" (category: {category})"
        if explanation:
            note += f": {explanation}"
        return note


def _arguments(block: _Block) -> str:
    """The argument JSON of a tool block: its fragments, or the input it started with."""
    if block.parts:
        return "".join(block.parts)
    start = block.raw.get("input")
    return json.dumps(start) if start else ""


def stream_error(event: dict[str, Any]) -> ModelError:
    """An `error` event (`{"type": "error", "error": {"type": ..., "message": ...}}`)."""
    error = event.get("error") or {}
    return classify_stream_error(
        str(error.get("type") or "api_error"),
        str(error.get("message") or ""),
        provider=PROVIDER,
        body=json.dumps(event),
    )
