"""A `ModelRequest` as Messages API parameters.

What the API requires, and how it is met here:

- Roles alternate user / assistant: consecutive messages of one role are merged,
  and tool results travel as `tool_result` blocks at the head of a user message.
- Extension messages are never sent; empty text blocks (which the API refuses) are
  dropped, and a message left with nothing is dropped with them.
- Thinking goes back exactly as it came: text plus signature, or the opaque data
  of a redacted block. Thinking without a signature (another provider's, or one cut
  off mid-stream) cannot be verified by the API, so it is left out.
- Prompt caching (on by default) marks at most four breakpoints, the API's limit:
  the system prompt, the last tool, and the last two user messages. The second of
  those is where the previous request of an agent loop ended, so each request reads
  the whole prefix the previous one wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeAlias

from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.models.base import ANY_TOOL, ModelRequest, ToolSpec

Block: TypeAlias = dict[str, Any]
Params: TypeAlias = dict[str, Any]

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
# Breakpoints on messages; the system prompt and the tools take the other two of four.
_MESSAGE_BREAKPOINTS = 2
_TOOL_ID_INVALID = re.compile(r"[^a-zA-Z0-9_-]")


def build_params(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int,
    prompt_caching: bool = True,
    thinking: dict[str, Any] | None = None,
) -> Params:
    """The request body for `request`, as sent (without `stream`)."""
    settings = request.settings
    params: Params = {
        "model": model,
        "max_tokens": settings.max_tokens or max_tokens,
        "messages": to_messages(request.messages),
    }
    if request.system_prompt:
        params["system"] = system_blocks(request.system_prompt, prompt_caching)
    if request.tools:
        params["tools"] = tool_params(request.tools, prompt_caching)
        if settings.tool_choice and thinking is None:  # a forced call rules thinking out
            params["tool_choice"] = (
                {"type": "any"}
                if settings.tool_choice == ANY_TOOL
                else {"type": "tool", "name": settings.tool_choice}
            )
    if prompt_caching:
        mark_last_user_messages(params["messages"], _MESSAGE_BREAKPOINTS)
    if thinking is not None:
        params["thinking"] = thinking
    if settings.temperature is not None:
        params["temperature"] = settings.temperature
    if settings.top_p is not None:
        params["top_p"] = settings.top_p
    if settings.stop:
        params["stop_sequences"] = list(settings.stop)
    if settings.extra:
        params.update(settings.extra)  # body fields of the caller's choosing win over ours
    return params


def system_blocks(text: str, prompt_caching: bool) -> str | list[Block]:
    if not prompt_caching:
        return text
    return [{"type": "text", "text": text, "cache_control": EPHEMERAL}]


def tool_params(tools: Sequence[ToolSpec], prompt_caching: bool) -> list[Block]:
    out: list[Block] = [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]
    if prompt_caching:
        out[-1]["cache_control"] = EPHEMERAL
    return out


def mark_last_user_messages(messages: list[Block], count: int) -> None:
    """Put a cache breakpoint on the last block of the last `count` user messages."""
    for message in reversed(messages):
        if count == 0:
            return
        if message["role"] == "user" and message["content"]:
            message["content"][-1]["cache_control"] = EPHEMERAL
            count -= 1


# ── messages ────────────────────────────────────────────────────────────────


def to_messages(messages: Sequence[Message]) -> list[Block]:
    """Tiller messages as API messages: alternating roles, nothing empty."""
    out: list[Block] = []
    for message in messages:
        if isinstance(message, ExtensionMessage):
            continue
        if isinstance(message, UserMessage):
            role, blocks = "user", [b for c in message.content if (b := _user_block(c))]
        elif isinstance(message, ToolResultMessage):
            role, blocks = "user", [_tool_result_block(message)]
        else:
            role, blocks = "assistant", _assistant_blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            _merge_into(out[-1]["content"], blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _merge_into(content: list[Block], blocks: list[Block]) -> None:
    """Append `blocks`; tool results go before any other user content, as the API requires."""
    results = [b for b in blocks if b["type"] == "tool_result"]
    if not results:
        content.extend(blocks)
        return
    head = sum(1 for b in content if b["type"] == "tool_result")
    content[head:head] = results
    content.extend(b for b in blocks if b["type"] != "tool_result")


def _user_block(block: TextContent | ImageContent) -> Block | None:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text} if block.text else None
    return image_block(block)


def image_block(image: ImageContent) -> Block:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    }


def _tool_result_block(message: ToolResultMessage) -> Block:
    content: list[Block] = [b for c in message.content if (b := _user_block(c))]
    block: Block = {"type": "tool_result", "tool_use_id": tool_use_id(message.tool_call_id)}
    if content:
        block["content"] = content
    if message.is_error:
        block["is_error"] = True
    return block


def _assistant_blocks(message: AssistantMessage) -> list[Block]:
    out: list[Block] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                out.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            if block.redacted and block.signature:
                out.append({"type": "redacted_thinking", "data": block.signature})
            elif block.signature:
                out.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                )
        elif isinstance(block, ToolCall):
            out.append(
                {
                    "type": "tool_use",
                    "id": tool_use_id(block.id),
                    "name": block.name,
                    # Arguments that did not parse were answered with an error result;
                    # the API takes only an object here.
                    "input": block.arguments,
                }
            )
    return out


def tool_use_id(call_id: str) -> str:
    """A call id the API accepts (`[a-zA-Z0-9_-]+`); ids from other providers may not be."""
    if not call_id:
        return "toolu_missing"
    return _TOOL_ID_INVALID.sub("_", call_id)
