"""Reading a model's stream in tests."""

from __future__ import annotations

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
