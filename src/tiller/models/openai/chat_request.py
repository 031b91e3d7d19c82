"""Tiller messages as a Chat Completions request body.

Chat Completions has no image parts in `tool` messages (their content is text
only), so a tool result's images follow the run of tool messages as one user
message that says which call they came from. Reasoning is sent back on assistant
messages only under the field the provider reads (`reasoning_content` for
DeepSeek, llama.cpp and vLLM; `reasoning` for Ollama and OpenRouter), never to
OpenAI itself, which has no such field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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


def data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"


def arguments_json(call: ToolCall) -> str:
    """The argument text as the model produced it (malformed text is sent back as it was)."""
    if call.invalid_arguments is not None:
        return call.invalid_arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def chat_messages(
    messages: Sequence[Message], system_prompt: str | None, reasoning_replay: str | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system_prompt:
        out.append({"role": "system", "content": system_prompt})
    pending_images: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            out.append(_tool_message(message, pending_images))
            continue
        if pending_images:
            out.append({"role": "user", "content": pending_images})
            pending_images = []
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_content(message.content)})
        elif isinstance(message, AssistantMessage):
            out.append(_assistant_message(message, reasoning_replay))
        elif isinstance(message, ExtensionMessage):
            continue
    if pending_images:
        out.append({"role": "user", "content": pending_images})
    return out


def _user_content(blocks: Sequence[TextContent | ImageContent]) -> str | list[dict[str, Any]]:
    if len(blocks) == 1 and isinstance(blocks[0], TextContent):
        return blocks[0].text
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": data_url(block)}})
    return parts


def _tool_message(
    message: ToolResultMessage, pending_images: list[dict[str, Any]]
) -> dict[str, Any]:
    images = [b for b in message.content if isinstance(b, ImageContent)]
    text = message.text
    if images:
        count = f"{len(images)} image{'s' if len(images) > 1 else ''}"
        note = f"[{count} attached in the next user message]"
        text = f"{text}\n{note}" if text else note
        pending_images.append(
            {
                "type": "text",
                "text": f"Images returned by the tool {message.tool_name!r} "
                f"(call {message.tool_call_id}):",
            }
        )
        pending_images.extend(
            {"type": "image_url", "image_url": {"url": data_url(image)}} for image in images
        )
    return {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}


def _assistant_message(message: AssistantMessage, reasoning_replay: str | None) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_json(call)},
        }
        for call in message.content
        if isinstance(call, ToolCall)
    ]
    out: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        out["tool_calls"] = calls
    if reasoning_replay:
        thinking = "".join(
            b.thinking for b in message.content if isinstance(b, ThinkingContent) and not b.redacted
        )
        if thinking or calls:
            # DeepSeek wants the field on every tool-call turn, even when it is empty.
            out[reasoning_replay] = thinking
    return out


def chat_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def chat_params(
    model: str,
    request: ModelRequest,
    *,
    max_tokens_field: str,
    stream_usage: bool,
    reasoning_replay: str | None,
) -> dict[str, Any]:
    """Keyword arguments for `chat.completions.create(...)`, streaming."""
    settings = request.settings
    params: dict[str, Any] = {
        "model": model,
        "messages": chat_messages(request.messages, request.system_prompt, reasoning_replay),
        "stream": True,
    }
    if stream_usage:
        params["stream_options"] = {"include_usage": True}
    if request.tools:
        params["tools"] = chat_tools(request.tools)
        if settings.tool_choice:
            params["tool_choice"] = (
                ANY_TOOL
                if settings.tool_choice == ANY_TOOL
                else {"type": "function", "function": {"name": settings.tool_choice}}
            )
    if settings.max_tokens is not None:
        params[max_tokens_field] = settings.max_tokens
    if settings.temperature is not None:
        params["temperature"] = settings.temperature
    if settings.top_p is not None:
        params["top_p"] = settings.top_p
    if settings.stop:
        params["stop"] = list(settings.stop)
    if settings.extra:
        params["extra_body"] = dict(settings.extra)
    return params
