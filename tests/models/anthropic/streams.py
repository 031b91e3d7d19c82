"""Reading a model's stream in tests."""

from __future__ import annotations

from typing import Any, TypeAlias

from tests.servers.anthropic_api import Received
from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import AssistantMessage, Message, UserMessage
from tiller.models.base import Model, ModelRequest, ToolSpec


async def collect(model: Model, request: ModelRequest) -> tuple[list[Delta], AssistantMessage]:
    """Every delta, and the final message (which must come last, once)."""
    deltas: list[Delta] = []
    final: list[AssistantMessage] = []
    async for item in model.stream(request):
        assert not final, "nothing may follow the final message"
        if isinstance(item, AssistantMessage):
            final.append(item)
        elif isinstance(item, TextDelta | ThinkingDelta | ToolCallDelta):
            deltas.append(item)
    assert len(final) == 1
    return deltas, final[0]


Sent: TypeAlias = tuple[str, bool, list[tuple[str, str]]]


def sent(request: Received) -> Sent:
    """The key fields of a recorded request: model, stream flag, each message's role and text."""
    return (
        request.body["model"],
        request.body.get("stream", False),
        [(m["role"], _text_of(m["content"])) for m in request.messages],
    )


def asked(text: str, model: str = "claude-sonnet-4-5") -> Sent:
    """What `sent` gives for a streamed request of one user message `text`."""
    return (model, True, [("user", text)])


def _text_of(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block["type"] == "text")


def ask(
    text: str, *, tools: list[ToolSpec] | None = None, system: str | None = None
) -> ModelRequest:
    messages: list[Message] = [UserMessage.of(text)]
    return ModelRequest(messages, system_prompt=system, tools=tools or [])


WEATHER = ToolSpec(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TIME = ToolSpec(
    "get_time",
    "The local time in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
