"""Builds an `AssistantMessage` from streamed deltas.

Providers and test models feed it the fragments they stream; it keeps blocks in
index order and parses each tool call's argument JSON once, at the end. Argument
text that does not parse is kept as `invalid_arguments`, never truncated.
"""

from __future__ import annotations

import json
from typing import Any

from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import (
    AssistantMessage,
    Content,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)


class _PendingCall:
    __slots__ = ("fragments", "id", "name")

    def __init__(self, id: str, name: str) -> None:
        self.id = id
        self.name = name
        self.fragments: list[str] = []


class MessageAssembler:
    __slots__ = ("_blocks",)

    def __init__(self) -> None:
        self._blocks: dict[int, list[str] | ThinkingContent | _PendingCall] = {}

    def add(self, delta: Delta) -> None:
        block = self._blocks.get(delta.index)
        if isinstance(delta, TextDelta):
            if block is None:
                self._blocks[delta.index] = [delta.text]
            elif isinstance(block, list):
                block.append(delta.text)
        elif isinstance(delta, ThinkingDelta):
            if not isinstance(block, ThinkingContent):
                block = self._blocks[delta.index] = ThinkingContent("")
            block.thinking += delta.thinking
            if delta.signature is not None:
                block.signature = delta.signature
        elif isinstance(delta, ToolCallDelta):
            if not isinstance(block, _PendingCall):
                block = self._blocks[delta.index] = _PendingCall(delta.id or "", delta.name or "")
            if delta.id:
                block.id = delta.id
            if delta.name:
                block.name = delta.name
            block.fragments.append(delta.arguments)

    def content(self) -> list[Content]:
        out: list[Content] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            if isinstance(block, list):
                out.append(TextContent("".join(block)))
            elif isinstance(block, ThinkingContent):
                out.append(block)
            else:
                out.append(parse_tool_call(block.id, block.name, "".join(block.fragments)))
        return out

    def finish(
        self,
        stop_reason: StopReason,
        *,
        usage: Usage | None = None,
        model: str = "",
        provider: str = "",
        error_message: str | None = None,
    ) -> AssistantMessage:
        return AssistantMessage(
            content=self.content(),
            stop_reason=stop_reason,
            usage=usage if usage is not None else Usage(),
            model=model,
            provider=provider,
            error_message=error_message,
        )


def parse_tool_call(id: str, name: str, arguments: str) -> ToolCall:
    """A tool call from its argument JSON; text that is not a JSON object is kept as invalid."""
    if not arguments.strip():
        return ToolCall(id, name, {})
    try:
        parsed: Any = json.loads(arguments)
    except ValueError:
        return ToolCall(id, name, {}, invalid_arguments=arguments)
    if not isinstance(parsed, dict):
        return ToolCall(id, name, {}, invalid_arguments=arguments)
    return ToolCall(id, name, parsed)
