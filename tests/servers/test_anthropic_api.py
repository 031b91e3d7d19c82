"""The Messages API test server, read by the official SDK: its own stream accumulator
and its non-streaming call must agree on every scripted reply, so the server speaks
the protocol as the SDK understands it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from tests.servers.anthropic_api import (
    AnthropicAPI,
    Failure,
    RedactedThinking,
    Reply,
    Text,
    Thinking,
    ToolUse,
)

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

MODEL = "claude-sonnet-4-5"
ASK: list[Any] = [{"role": "user", "content": "hi"}]
REPLY = Reply(
    [
        Thinking("Let me think.", "sig-1", piece=4),
        RedactedThinking("opaque"),
        Text("Héllo wörld", piece=3),
        ToolUse.of("toolu_1", "lookup", {"q": "x", "n": 2}, piece=5),
    ],
    stop_reason="tool_use",
    usage={"input_tokens": 11, "output_tokens": 22, "cache_read_input_tokens": 5},
)


@pytest.fixture
def api() -> Iterator[AnthropicAPI]:
    server = AnthropicAPI(api_key="k")
    with server.serving():
        yield server


def _client(api: AnthropicAPI) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="k", base_url=api.url, max_retries=0)


def test_the_sdk_accumulates_the_stream_into_the_non_streamed_message(api: AnthropicAPI) -> None:
    api.script(REPLY, REPLY)
    client = _client(api)

    with client.messages.stream(model=MODEL, max_tokens=100, messages=ASK) as stream:
        streamed = stream.get_final_message()
    whole = client.messages.create(model=MODEL, max_tokens=100, messages=ASK)

    assert streamed.model_dump(exclude={"id"}) == whole.model_dump(exclude={"id"})
    assert [b.type for b in whole.content] == ["thinking", "redacted_thinking", "text", "tool_use"]
    assert whole.stop_reason == "tool_use"
    assert whole.usage.cache_read_input_tokens == 5
    tool_use = whole.content[3]
    assert isinstance(tool_use, anthropic.types.ToolUseBlock)
    assert tool_use.input == {"q": "x", "n": 2}
    assert api.requests[0].body["stream"] is True
    assert "stream" not in api.requests[1].body


def test_errors_reach_the_sdk_as_its_own_error_types(api: AnthropicAPI) -> None:
    api.script(
        Failure(529, "overloaded_error", "Overloaded"),
        Reply([Text("partial")], error={"type": "overloaded_error", "message": "Overloaded"}),
    )
    client = _client(api)

    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    # The SDK raises an in-stream error event as a status error with the stream's 200.
    with (
        pytest.raises(anthropic.APIStatusError) as caught,
        client.messages.stream(model=MODEL, max_tokens=10, messages=ASK) as stream,
    ):
        stream.get_final_message()
    assert caught.value.status_code == 200
    assert caught.value.type == "overloaded_error"


def test_the_server_refuses_what_the_api_refuses(api: AnthropicAPI) -> None:
    client = _client(api)
    orphan_call: list[Any] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
        },
        {"role": "user", "content": [{"type": "text", "text": "no result"}]},
    ]

    with pytest.raises(anthropic.BadRequestError, match="without `tool_result`"):
        client.messages.create(model=MODEL, max_tokens=10, messages=orphan_call)
    with pytest.raises(anthropic.AuthenticationError):
        anthropic.Anthropic(api_key="other", base_url=api.url, max_retries=0).messages.create(
            model=MODEL, max_tokens=10, messages=ASK
        )
    assert api.remaining == 0
