"""Tiller messages as a Responses API request: `instructions` plus a list of input items.

Requests are stateless (`store: false`): the whole history goes in `input` every
turn. Reasoning items come back as they were received (id, summary and encrypted
content, kept in the thinking block's signature), which is what lets a reasoning
model continue its chain of thought across tool calls. A reasoning item without
encrypted content cannot be replayed statelessly (OpenAI would look its id up and
answer 404), and thinking from other providers has no item at all: both are left out.
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
from tiller.models.openai.chat_request import arguments_json, data_url

# Marks a thinking signature that holds an OpenAI reasoning item.
REASONING_ITEM = "openai-responses/reasoning"


def reasoning_signature(item: dict[str, Any]) -> str:
    """What a thinking block keeps of a reasoning item, to send it back unchanged."""
    return json.dumps(
        {
            "type": REASONING_ITEM,
            "id": item.get("id"),
            "summary": item.get("summary") or [],
            "encrypted_content": item.get("encrypted_content"),
        },
        ensure_ascii=False,
    )


def reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    """The reasoning input item a thinking block came from, or None if it is not one."""
    if not block.signature or not block.signature.startswith("{"):
        return None
    try:
        kept = json.loads(block.signature)
    except ValueError:
        return None
    if not isinstance(kept, dict) or kept.get("type") != REASONING_ITEM or not kept.get("id"):
        return None
    if not kept.get("encrypted_content"):
        # Without its encrypted content the item can only be looked up by id, and
        # stateless requests (store: false) keep nothing to look up: OpenAI answers 404.
        return None
    return {
        "type": "reasoning",
        "id": kept["id"],
        "summary": kept["summary"],
        "encrypted_content": kept["encrypted_content"],
    }


def _input_content(blocks: Sequence[TextContent | ImageContent]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": block.text})
        else:
            parts.append({"type": "input_image", "image_url": data_url(block), "detail": "auto"})
    return parts


def input_items(messages: Sequence[Message]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            items.append({"role": "user", "content": _input_content(message.content)})
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message))
        elif isinstance(message, ToolResultMessage):
            items.append(_tool_output(message))
        elif isinstance(message, ExtensionMessage):
            continue
    return items


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            item = reasoning_item(block)
            if item is not None:
                items.append(item)
        elif isinstance(block, TextContent):
            if block.text:
                items.append({"role": "assistant", "content": block.text})
        elif isinstance(block, ToolCall):
            items.append(
                {
                    "type": "function_call",
                    "call_id": block.id,
                    "name": block.name,
                    "arguments": arguments_json(block),
                }
            )
    return items


def _tool_output(message: ToolResultMessage) -> dict[str, Any]:
    output: str | list[dict[str, Any]]
    if any(isinstance(b, ImageContent) for b in message.content):
        output = _input_content(message.content)
    else:
        output = message.text
    return {"type": "function_call_output", "call_id": message.tool_call_id, "output": output}


def response_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
        for tool in tools
    ]


def responses_params(model: str, request: ModelRequest, *, reasoning: bool) -> dict[str, Any]:
    """Keyword arguments for `responses.create(...)`, streaming.

    `reasoning` asks a reasoning model for its summaries and encrypted reasoning
    (non-reasoning models refuse both). Stop sequences do not exist in this API.
    """
    settings = request.settings
    params: dict[str, Any] = {
        "model": model,
        "input": input_items(request.messages),
        "stream": True,
        "store": False,
    }
    if request.system_prompt:
        params["instructions"] = request.system_prompt
    if request.tools:
        params["tools"] = response_tools(request.tools)
        if settings.tool_choice:
            params["tool_choice"] = (
                ANY_TOOL
                if settings.tool_choice == ANY_TOOL
                else {"type": "function", "name": settings.tool_choice}
            )
    if reasoning:
        params["reasoning"] = {"summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    if settings.max_tokens is not None:
        params["max_output_tokens"] = settings.max_tokens
    if settings.temperature is not None:
        params["temperature"] = settings.temperature
    if settings.top_p is not None:
        params["top_p"] = settings.top_p
    if settings.extra:
        params["extra_body"] = dict(settings.extra)
    return params
