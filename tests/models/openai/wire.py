"""The two OpenAI wire protocols behind one interface, so a scenario is written once.

`CHAT` and `RESPONSES` build the same answers (text, tool calls, failures) in
their own protocol, make a model of their kind against a test server, and find
in a recorded request body what the client sent (the key fields of the request, a
tool result, a replayed tool call).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from tests.servers.openai_api import (
    ChatStream,
    OpenAIServer,
    Reply,
    ResponsesStream,
    Stream,
    error_body,
)
from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import AssistantMessage, Message, UserMessage
from tiller.models.base import Model, ModelRequest, ToolSpec
from tiller.models.openai.chat import OpenAIChatModel
from tiller.models.openai.responses import OpenAIResponsesModel

API_KEY = "sk-test"

# OpenAI's own overflow error, as its API returns it (HTTP 400).
OVERFLOW_MESSAGE = (
    "This model's maximum context length is 8192 tokens. However, your messages "
    "resulted in 8227 tokens. Please reduce the length of the messages."
)
OVERFLOW_BODY = error_body(
    OVERFLOW_MESSAGE, "invalid_request_error", "context_length_exceeded", "messages"
)

ADD = ToolSpec(
    "add",
    "Add two integers.",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)


# The key fields of a request: model, stream flag, each message's (or item's) role and text.
Sent: TypeAlias = tuple[str, bool, list[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class Call:
    id: str
    name: str
    fragments: tuple[str, ...]


class Wire(Protocol):
    name: str
    default_model: str

    def sent(self, body: dict[str, Any]) -> Sent: ...

    def asked(self, text: str) -> Sent: ...

    def model(self, server: OpenAIServer, **options: Any) -> Model: ...

    def text(self, *pieces: str) -> Stream: ...

    def calls(self, *calls: Call, text: str = "") -> Stream: ...

    def no_terminator(self, *pieces: str) -> Stream: ...

    def in_stream_error(self, message: str, code: str) -> Stream: ...

    def tool_output(self, body: dict[str, Any], call_id: str) -> str | None: ...

    def replayed_arguments(self, body: dict[str, Any], call_id: str) -> str | None: ...


class ChatWire:
    name = "chat"
    default_model = "gpt-4.1"

    def sent(self, body: dict[str, Any]) -> Sent:
        messages = [(m["role"], _text_of(m.get("content"))) for m in body["messages"]]
        return body["model"], body.get("stream", False), messages

    def asked(self, text: str) -> Sent:
        return self.default_model, True, [("user", text)]

    def model(self, server: OpenAIServer, **options: Any) -> OpenAIChatModel:
        options.setdefault("api_key", API_KEY)
        name = options.pop("name", self.default_model)
        return OpenAIChatModel(name, base_url=server.url, **options)

    def text(self, *pieces: str) -> Stream:
        return ChatStream().text(*pieces).finish("stop").usage(5, 3).stream()

    def calls(self, *calls: Call, text: str = "") -> Stream:
        chat = ChatStream()
        if text:
            chat.text(text)
        for index, call in enumerate(calls):
            chat.tool_call(index, call.id, call.name)
        # Interleave the fragments of all calls, as a parallel stream may.
        longest = max(len(c.fragments) for c in calls)
        for step in range(longest):
            for index, call in enumerate(calls):
                if step < len(call.fragments):
                    chat.tool_args(index, call.fragments[step])
        return chat.finish("tool_calls").usage(5, 3).stream()

    def no_terminator(self, *pieces: str) -> Stream:
        return ChatStream().text(*pieces).stream(done=False)

    def in_stream_error(self, message: str, code: str) -> Stream:
        return ChatStream().text("Part").error(message, code).stream(done=False)

    def tool_output(self, body: dict[str, Any], call_id: str) -> str | None:
        for message in body["messages"]:
            if message["role"] == "tool" and message["tool_call_id"] == call_id:
                return str(message["content"])
        return None

    def replayed_arguments(self, body: dict[str, Any], call_id: str) -> str | None:
        for message in body["messages"]:
            for call in message.get("tool_calls") or []:
                if call["id"] == call_id:
                    return str(call["function"]["arguments"])
        return None


class ResponsesWire:
    name = "responses"
    default_model = "gpt-5"

    def sent(self, body: dict[str, Any]) -> Sent:
        items = [
            (item.get("role", item.get("type", "")), _text_of(item.get("content")))
            for item in body["input"]
        ]
        return body["model"], body.get("stream", False), items

    def asked(self, text: str) -> Sent:
        return self.default_model, True, [("user", text)]

    def model(self, server: OpenAIServer, **options: Any) -> OpenAIResponsesModel:
        options.setdefault("api_key", API_KEY)
        name = options.pop("name", self.default_model)
        return OpenAIResponsesModel(name, base_url=server.url, **options)

    def text(self, *pieces: str) -> Stream:
        return ResponsesStream().message(*pieces).completed().stream()

    def calls(self, *calls: Call, text: str = "") -> Stream:
        responses = ResponsesStream()
        if text:
            responses.message(text)
        for call in calls:
            responses.function_call(call.id, call.name, *call.fragments)
        return responses.completed().stream()

    def no_terminator(self, *pieces: str) -> Stream:
        return ResponsesStream().message(*pieces).stream()

    def in_stream_error(self, message: str, code: str) -> Stream:
        return ResponsesStream().message("Part").error(code, message).stream()

    def tool_output(self, body: dict[str, Any], call_id: str) -> str | None:
        for item in body["input"]:
            if item.get("type") == "function_call_output" and item["call_id"] == call_id:
                output = item["output"]
                return output if isinstance(output, str) else str(output)
        return None

    def replayed_arguments(self, body: dict[str, Any], call_id: str) -> str | None:
        for item in body["input"]:
            if item.get("type") == "function_call" and item["call_id"] == call_id:
                return str(item["arguments"])
        return None


def _text_of(content: str | list[dict[str, Any]] | None) -> str:
    """The text of a message's content: a string, or parts with a `text` each."""
    if content is None or isinstance(content, str):
        return content or ""
    return "".join(part.get("text", "") for part in content)


CHAT = ChatWire()
RESPONSES = ResponsesWire()
WIRES = [CHAT, RESPONSES]


def overflow_reply() -> Reply:
    return Reply(400, OVERFLOW_BODY)


def ask(text: str, *, tools: list[ToolSpec] | None = None) -> ModelRequest:
    messages: list[Message] = [UserMessage.of(text)]
    return ModelRequest(messages, tools=tools or [])


async def collect(model: Model, request: ModelRequest) -> tuple[list[Delta], AssistantMessage]:
    """Every delta, then the final message, which must come last and once."""
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
