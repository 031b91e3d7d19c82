"""Token counts of messages.

`estimate_tokens` is the fast heuristic, about four UTF-8 bytes per token; the
message functions take any text counter (`token_counters.py` has exact ones) and
keep the same rules for images, tool calls and per-message overhead.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable

from tiller.messages import (
    AssistantMessage,
    Content,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)


def _image_bytes(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data) * 3 // 4


def estimate_tokens(text: str) -> int:
    # An ASCII string's length is its UTF-8 size; isascii() is a flag check, not a scan.
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    return (size + 3) // 4


CountText = Callable[[str], int]


def content_tokens(content: Iterable[Content], count: CountText = estimate_tokens) -> int:
    total = 0
    for block in content:
        if isinstance(block, TextContent):
            total += count(block.text)
        elif isinstance(block, ImageContent):
            # ~750 bytes per image token; floor 85, cap 16,000
            total += min(max(_image_bytes(block.data) // 750, 85), 16_000)
        elif isinstance(block, ThinkingContent):
            total += count(block.thinking)
        elif isinstance(block, ToolCall):
            args = block.invalid_arguments
            if args is None:
                args = json.dumps(block.arguments)
            total += count(block.name) + count(args) + 8
    return total


def message_tokens(message: Message, count: CountText = estimate_tokens) -> int:
    if isinstance(message, ToolResultMessage):
        return content_tokens(message.content, count) + count(message.tool_name) + 8
    if isinstance(message, ExtensionMessage):
        return count(json.dumps({"text": message.text, "data": message.data})) + 4
    if isinstance(message, AssistantMessage):
        return content_tokens(message.content, count) + 4
    return content_tokens(message.content, count) + 4


def total_tokens(messages: Iterable[Message]) -> int:
    return sum(message_tokens(m) for m in messages)
