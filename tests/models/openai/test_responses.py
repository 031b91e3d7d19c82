"""The Responses API over a real socket: what Tiller makes of each event stream, and
what it sent."""

from __future__ import annotations

import pytest

from tests.helpers import Recorder
from tests.models.openai.conftest import FAST_RETRY
from tests.models.openai.test_chat import PIXEL
from tests.models.openai.wire import ADD, API_KEY, RESPONSES, ask, collect
from tests.servers.openai_api import OpenAIServer, Recorded, ResponsesStream, Stream
from tiller import Agent, tool
from tiller.errors import NetworkError, OverloadedError
from tiller.events import Retry, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.loop.options import Execution
from tiller.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.models.base import ModelRequest, ModelSettings


async def test_text_in_many_small_deltas(server: OpenAIServer) -> None:
    text = "Streaming, one character at a time. " * 6
    server.add(ResponsesStream().message(*text).completed().stream())
    deltas, message = await collect(RESPONSES.model(server), ask("Go"))
    assert len(deltas) == len(text)
    assert message.text == text
    assert message.stop_reason == "stop"
    assert (message.model, message.provider) == ("gpt-5", "openai-responses")
    sent = server.requests[0]
    assert sent.path == "/v1/responses"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body["stream"] is True
    assert sent.body["store"] is False
    assert sent.body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "Go"}]}
    ]


async def test_utf8_characters_split_across_network_writes(server: OpenAIServer) -> None:
    text = "naïve café — 東京 🚀"
    stream = ResponsesStream().message(*text).completed().stream()
    server.add(stream.split_inside_characters())
    deltas, message = await collect(RESPONSES.model(server), ask("x"))
    assert message.text == text
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("x")]


async def test_function_call_with_fragmented_arguments(server: OpenAIServer) -> None:
    stream = (
        ResponsesStream()
        .function_call("call_f1", "add", '{"a"', ": 7,", ' "b": ', "8}")
        .completed()
        .stream()
    )
    server.add(stream)
    deltas, message = await collect(RESPONSES.model(server), ask("7+8", tools=[ADD]))
    first = next(d for d in deltas if isinstance(d, ToolCallDelta))
    assert (first.id, first.name) == ("call_f1", "add")
    assert message.tool_calls == [ToolCall("call_f1", "add", {"a": 7, "b": 8})]
    assert message.stop_reason == "tool_use"
    assert server.requests[0].body["tools"] == [
        {
            "type": "function",
            "name": "add",
            "description": ADD.description,
            "parameters": ADD.parameters,
            "strict": False,
        }
    ]


async def test_parallel_function_calls(server: OpenAIServer) -> None:
    stream = (
        ResponsesStream()
        .function_call("call_1", "add", '{"a": 1, "b": 1}')
        .function_call("call_2", "add", '{"a": 2,', ' "b": 2}')
        .completed()
        .stream()
    )
    server.add(stream)
    _, message = await collect(RESPONSES.model(server), ask("sums", tools=[ADD]))
    assert message.tool_calls == [
        ToolCall("call_1", "add", {"a": 1, "b": 1}),
        ToolCall("call_2", "add", {"a": 2, "b": 2}),
    ]


async def test_a_call_sent_only_as_a_finished_item_is_kept(server: OpenAIServer) -> None:
    responses = ResponsesStream()
    item = {
        "id": "fc_9",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_9",
        "name": "add",
        "arguments": '{"a": 3, "b": 4}',
    }
    responses._emit("response.output_item.done", output_index=0, item=item)
    responses.output.append(item)
    server.add(responses.completed().stream())
    _, message = await collect(RESPONSES.model(server), ask("3+4", tools=[ADD]))
    assert message.tool_calls == [ToolCall("call_9", "add", {"a": 3, "b": 4})]


async def test_reasoning_items_are_kept_and_replayed(server: OpenAIServer) -> None:
    server.add(
        ResponsesStream()
        .reasoning(
            ["The user wants ", "a sum."], ["Call add."], id="rs_42", encrypted="gAAAA-secret"
        )
        .function_call("call_r", "add", '{"a": 2, "b": 2}')
        .completed(input=30, output=50, reasoning=40)
        .stream()
    )

    def check_replay(recorded: Recorded) -> Stream:
        reasoning = [i for i in recorded.body["input"] if i.get("type") == "reasoning"]
        expected = {
            "type": "reasoning",
            "id": "rs_42",
            "summary": [
                {"type": "summary_text", "text": "The user wants a sum."},
                {"type": "summary_text", "text": "Call add."},
            ],
            "encrypted_content": "gAAAA-secret",
        }
        text = "4" if reasoning == [expected] else f"reasoning lost: {reasoning}"
        return ResponsesStream().message(text).completed().stream()

    server.add(check_replay)

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    bot = Agent(RESPONSES.model(server), tools=[add], execution=Execution(retry=FAST_RETRY))
    result = await bot.run("2+2?")
    assert result.text == "4"
    first = result.messages[1]
    assert isinstance(first, AssistantMessage)
    thinking = first.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "The user wants a sum.\n\nCall add."
    body = server.requests[1].body
    kinds = [i.get("type", i.get("role")) for i in body["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    # A reasoning model is asked for its summaries and encrypted reasoning.
    assert body["reasoning"] == {"summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


async def test_reasoning_deltas_stream_as_thinking(server: OpenAIServer) -> None:
    server.add(ResponsesStream().reasoning(["Hmm", "..."]).message("Yes").completed().stream())
    deltas, message = await collect(RESPONSES.model(server), ask("x"))
    assert [d.thinking for d in deltas if isinstance(d, ThinkingDelta) and d.thinking] == [
        "Hmm",
        "...",
    ]
    assert [type(b) for b in message.content] == [ThinkingContent, TextContent]


async def test_thinking_from_another_provider_is_not_sent(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("ok").completed().stream())
    history: list[Message] = [
        UserMessage.of("hi"),
        AssistantMessage(
            [ThinkingContent("claude thoughts", signature="sig"), TextContent("Hello")], "stop"
        ),
        UserMessage.of("again"),
    ]
    await collect(RESPONSES.model(server), ModelRequest(history))
    assert server.requests[0].body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": [{"type": "input_text", "text": "again"}]},
    ]


async def test_reasoning_without_encrypted_content_is_not_replayed(server: OpenAIServer) -> None:
    server.add(
        ResponsesStream()
        .reasoning(["plain"], id="rs_x", encrypted=None)
        .message("a")
        .completed()
        .stream(),
        ResponsesStream().message("b").completed().stream(),
    )
    model = RESPONSES.model(server)
    _, first = await collect(model, ask("x"))
    assert isinstance(first.content[0], ThinkingContent)
    await collect(model, ModelRequest([UserMessage.of("x"), first, UserMessage.of("y")]))
    kinds = [i.get("type", i.get("role")) for i in server.requests[1].body["input"]]
    assert kinds == ["user", "assistant", "user"]


async def test_non_reasoning_models_are_not_asked_for_reasoning(server: OpenAIServer) -> None:
    server.add(ResponsesStream(model="gpt-4.1").message("ok").completed().stream())
    await collect(RESPONSES.model(server, name="gpt-4.1"), ask("x"))
    body = server.requests[0].body
    assert "reasoning" not in body
    assert "include" not in body


async def test_incomplete_is_length(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("Once upon").incomplete("max_output_tokens").stream())
    request = ModelRequest([UserMessage.of("story")], settings=ModelSettings(max_tokens=2))
    _, message = await collect(RESPONSES.model(server), request)
    assert message.stop_reason == "length"
    assert message.text == "Once upon"
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("story")]
    assert server.requests[0].body["max_output_tokens"] == 2


async def test_incomplete_for_content_filter_is_refusal(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("Par").incomplete("content_filter").stream())
    _, message = await collect(RESPONSES.model(server), ask("x"))
    assert message.stop_reason == "refusal"
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("x")]


async def test_refusal(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("I can't ", "assist.", refusal=True).completed().stream())
    _, message = await collect(RESPONSES.model(server), ask("x"))
    assert message.stop_reason == "refusal"
    assert message.text == "I can't assist."
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("x")]


async def test_cached_tokens_and_cost(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("ok").completed(2000, 300, cached=1500).stream())
    _, message = await collect(RESPONSES.model(server), ask("x"))
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (500, 1500, 300)
    # gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens.
    assert usage.cost_usd == pytest.approx((500 * 1.25 + 1500 * 0.125 + 300 * 10) / 1e6)
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("x")]


async def test_cache_writes_are_kept_apart_and_cost_the_input_price(
    server: OpenAIServer,
) -> None:
    completed = ResponsesStream().message("ok").completed(2000, 300, cached=1500, cache_write=400)
    server.add(completed.stream())
    _, message = await collect(RESPONSES.model(server), ask("x"))
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        100,
        1500,
        400,
    )
    # gpt-5 bills a cache write at its input price ($1.25): the cost is unchanged.
    assert usage.cost_usd == pytest.approx((500 * 1.25 + 1500 * 0.125 + 300 * 10) / 1e6)
    assert [RESPONSES.sent(b) for b in server.bodies] == [RESPONSES.asked("x")]


async def test_instructions_images_and_settings(server: OpenAIServer) -> None:
    server.add(ResponsesStream().message("A dot.").completed().stream())
    messages: list[Message] = [
        UserMessage([TextContent("What is it?"), ImageContent(PIXEL, "image/png")]),
        AssistantMessage([ToolCall("call_s", "look", {})], "tool_use"),
        ToolResultMessage(
            "call_s", "look", [TextContent("seen"), ImageContent(PIXEL, "image/png")]
        ),
    ]
    settings = ModelSettings(temperature=0.3, top_p=0.5, extra={"service_tier": "flex"})
    request = ModelRequest(messages, system_prompt="Describe images.", settings=settings)
    await collect(RESPONSES.model(server), request)
    body = server.requests[0].body
    url = f"data:image/png;base64,{PIXEL}"
    assert body["instructions"] == "Describe images."
    assert body["input"][0]["content"][1] == {
        "type": "input_image",
        "image_url": url,
        "detail": "auto",
    }
    assert body["input"][2] == {
        "type": "function_call_output",
        "call_id": "call_s",
        "output": [
            {"type": "input_text", "text": "seen"},
            {"type": "input_image", "image_url": url, "detail": "auto"},
        ],
    }
    assert (body["temperature"], body["top_p"], body["service_tier"]) == (0.3, 0.5, "flex")


async def test_response_failed_is_classified_and_retried(server: OpenAIServer) -> None:
    failed = ResponsesStream().message("Par").failed("server_error", "The model failed.").stream()
    server.add(failed)
    with pytest.raises(NetworkError, match="The model failed"):
        await collect(RESPONSES.model(server), ask("x"))
    server.add(failed, ResponsesStream().message("fine").completed().stream())
    bot = Agent(RESPONSES.model(server), execution=Execution(retry=FAST_RETRY))
    events = Recorder()
    bot.subscribe(events)
    assert (await bot.run("x")).text == "fine"
    assert [r.error_kind for r in events.of(Retry)] == ["network"]
    # the direct call above, then the agent's call and its retry, all the same request
    assert server.bodies == [server.bodies[0]] * 3
    assert RESPONSES.sent(server.bodies[0]) == RESPONSES.asked("x")


async def test_nested_error_event_shape(server: OpenAIServer) -> None:
    responses = ResponsesStream()
    responses._emit(
        "error", error={"type": "overloaded_error", "code": "overloaded_error", "message": "busy"}
    )
    server.add(responses.stream())
    with pytest.raises(OverloadedError, match="busy"):
        await collect(RESPONSES.model(server), ask("x"))


async def test_responses_prefix_resolves(server: OpenAIServer) -> None:
    from tiller.models.registry import resolve_model

    server.add(ResponsesStream(model="o4-mini").message("hi").completed().stream())
    model = resolve_model("openai-responses:o4-mini", base_url=server.url, api_key="k2")
    assert (model.name, model.provider) == ("o4-mini", "openai-responses")
    _, message = await collect(model, ask("x"))
    assert message.text == "hi"
    assert server.requests[0].headers["authorization"] == "Bearer k2"
    assert server.requests[0].body["reasoning"] == {"summary": "auto"}


async def test_tool_choice_names_the_function_to_call(server: OpenAIServer) -> None:
    server.add(ResponsesStream().function_call("c1", "add", "{}").completed().stream())
    request = ask("7+8", tools=[ADD])
    request.settings = ModelSettings(tool_choice="add")
    await collect(RESPONSES.model(server), request)
    assert server.requests[0].body["tool_choice"] == {"type": "function", "name": "add"}
