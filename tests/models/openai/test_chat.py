"""Chat Completions over a real socket: what Tiller makes of each stream, and what it sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.models.openai.conftest import FAST_RETRY
from tests.models.openai.wire import ADD, API_KEY, CHAT, ask, collect
from tests.servers.openai_api import ChatStream, OpenAIServer, Recorded, Stream, chat_text
from tiller import Agent, tool
from tiller.events import TextDelta, ThinkingDelta, ToolCallDelta
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
from tiller.models.openai.chat import OpenAIChatModel

PIXEL = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)


async def test_text_in_many_small_deltas(server: OpenAIServer) -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 8
    server.add(chat_text(text, pieces=len(text)))
    deltas, message = await collect(CHAT.model(server), ask("Say it"))
    assert len(deltas) == len(text)
    assert all(isinstance(d, TextDelta) and d.index == 0 for d in deltas)
    assert message.text == text
    assert message.stop_reason == "stop"
    assert (message.model, message.provider) == ("gpt-4.1", "openai")
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body["model"] == "gpt-4.1"
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"] == [{"role": "user", "content": "Say it"}]
    assert "tools" not in sent.body


async def test_utf8_characters_split_across_network_writes(server: OpenAIServer) -> None:
    text = "héllo wörld — 你好 🌍 ✓"
    pieces = [text[i : i + 2] for i in range(0, len(text), 2)]
    stream = ChatStream().text(*pieces).finish("stop").usage(5, 3).stream()
    split = stream.split_inside_characters()
    assert len(split.pieces) == len(stream.pieces) + sum(1 for c in text if ord(c) > 127)
    server.add(split)
    deltas, message = await collect(CHAT.model(server), ask("Greet"))
    assert message.text == text
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == pieces
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("Greet")]


async def test_one_tool_call_with_fragmented_arguments(server: OpenAIServer) -> None:
    stream = (
        ChatStream()
        .tool_call(0, "call_Ab1", "add")
        .tool_args(0, '{"', 'a"', ": 4", ', "b', '": 5', "}")
        .finish("tool_calls")
        .usage(20, 9)
        .stream()
    )
    server.add(stream)
    deltas, message = await collect(CHAT.model(server), ask("4+5?", tools=[ADD]))
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0].id == "call_Ab1"
    assert calls[0].name == "add"
    assert "".join(d.arguments for d in calls) == '{"a": 4, "b": 5}'
    assert message.tool_calls == [ToolCall("call_Ab1", "add", {"a": 4, "b": 5})]
    assert message.stop_reason == "tool_use"
    assert server.requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "add",
                "description": ADD.description,
                "parameters": ADD.parameters,
            },
        }
    ]


async def test_parallel_tool_calls_are_assembled_by_index(server: OpenAIServer) -> None:
    stream = (
        ChatStream()
        .tool_call(0, "call_1", "add")
        .tool_call(1, "call_2", "add")
        .tool_args(1, '{"a": 10,')
        .tool_args(0, '{"a": 1,')
        .tool_args(0, ' "b": 2}')
        .tool_args(1, ' "b": 20}')
        .finish("tool_calls")
        .stream()
    )
    server.add(stream)
    _, message = await collect(CHAT.model(server), ask("two sums", tools=[ADD]))
    assert message.tool_calls == [
        ToolCall("call_1", "add", {"a": 1, "b": 2}),
        ToolCall("call_2", "add", {"a": 10, "b": 20}),
    ]


async def test_a_server_that_sends_no_call_id_gets_one_made_up(server: OpenAIServer) -> None:
    chat = ChatStream()
    chat._chunk({"tool_calls": [{"function": {"name": "add", "arguments": '{"a":1,"b":2}'}}]})
    server.add(chat.finish("stop").stream())
    _, message = await collect(CHAT.model(server), ask("1+2", tools=[ADD]))
    (call,) = message.tool_calls
    assert call.id.startswith("call_")
    assert call.arguments == {"a": 1, "b": 2}
    # A call with finish_reason "stop" (some local servers) still means tool use.
    assert message.stop_reason == "tool_use"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_become_thinking(server: OpenAIServer, field: str) -> None:
    stream = (
        ChatStream()
        .reasoning("Two plus ", "two...", field=field)
        .text("4")
        .finish("stop")
        .usage(9, 7, reasoning=5)
        .stream()
    )
    server.add(stream)
    deltas, message = await collect(CHAT.model(server, provider="ollama"), ask("2+2"))
    assert [d.thinking for d in deltas if isinstance(d, ThinkingDelta)] == ["Two plus ", "two..."]
    assert message.content == [ThinkingContent("Two plus two..."), TextContent("4")]


def _assistant_with_thinking() -> list[Message]:
    return [
        UserMessage.of("What is 2+3?"),
        AssistantMessage(
            [ThinkingContent("I should call add."), ToolCall("call_9", "add", {"a": 2, "b": 3})],
            "tool_use",
        ),
        ToolResultMessage("call_9", "add", [TextContent("5")]),
    ]


async def test_reasoning_goes_back_to_deepseek_under_its_field(server: OpenAIServer) -> None:
    server.add(chat_text("5"))
    model = OpenAIChatModel(
        "deepseek-reasoner", provider="deepseek", base_url=server.url, api_key="k"
    )
    await collect(model, ModelRequest(_assistant_with_thinking(), tools=[ADD]))
    assistant = server.requests[0].body["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
        ],
        "reasoning_content": "I should call add.",
    }
    assert server.requests[0].body["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": "5",
    }


async def test_reasoning_is_not_sent_to_openai(server: OpenAIServer) -> None:
    server.add(chat_text("5"))
    await collect(CHAT.model(server), ModelRequest(_assistant_with_thinking(), tools=[ADD]))
    assistant = server.requests[0].body["messages"][1]
    assert "reasoning_content" not in assistant
    assert "reasoning" not in assistant


async def test_max_tokens_stop_is_length(server: OpenAIServer) -> None:
    server.add(ChatStream().text("Once upon a").finish("length").usage(5, 3).stream())
    request = ModelRequest([UserMessage.of("A story")], settings=ModelSettings(max_tokens=3))
    _, message = await collect(CHAT.model(server), request)
    assert message.stop_reason == "length"
    assert message.text == "Once upon a"
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("A story")]
    assert server.requests[0].body["max_completion_tokens"] == 3
    assert "max_tokens" not in server.requests[0].body


async def test_compatible_servers_get_max_tokens(server: OpenAIServer) -> None:
    server.add(chat_text("hi"))
    model = OpenAIChatModel("qwen3", provider="ollama", base_url=server.url)
    settings = ModelSettings(max_tokens=7, temperature=0.2, top_p=0.9, stop=["END"])
    await collect(model, ModelRequest([UserMessage.of("x")], settings=settings))
    body = server.requests[0].body
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["stop"]) == (
        7,
        0.2,
        0.9,
        ["END"],
    )
    assert "max_completion_tokens" not in body


async def test_refusal_is_kept_as_text_with_stop_reason_refusal(server: OpenAIServer) -> None:
    server.add(ChatStream().refusal("I can't ", "help with that.").finish("stop").stream())
    _, message = await collect(CHAT.model(server), ask("Something bad"))
    assert message.stop_reason == "refusal"
    assert message.text == "I can't help with that."
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("Something bad")]


async def test_content_filter_is_a_refusal(server: OpenAIServer) -> None:
    server.add(ChatStream().text("Par").finish("content_filter").stream())
    _, message = await collect(CHAT.model(server), ask("x"))
    assert message.stop_reason == "refusal"
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("x")]


async def test_cached_tokens_are_cache_reads_and_priced(server: OpenAIServer) -> None:
    server.add(ChatStream().text("ok").finish("stop").usage(1000, 100, cached=400).stream())
    _, message = await collect(CHAT.model(server), ask("x"))
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (600, 400, 100)
    # gpt-4.1: $2 input, $0.50 cached input, $8 output per million tokens.
    assert usage.cost_usd == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("x")]
    assert server.bodies[0]["stream_options"] == {"include_usage": True}


async def test_cache_writes_are_kept_apart_and_cost_the_input_price(
    server: OpenAIServer,
) -> None:
    usage_chunk = ChatStream().text("ok").finish("stop")
    server.add(usage_chunk.usage(1000, 100, cached=400, cache_write=250).stream())
    _, message = await collect(CHAT.model(server), ask("x"))
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        350,
        400,
        250,
    )
    assert usage.output_tokens == 100
    # OpenAI bills a cache write at the input price: the cost is that of 600 input tokens.
    assert usage.cost_usd == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)
    assert [CHAT.sent(b) for b in server.bodies] == [CHAT.asked("x")]


async def test_deepseek_cache_hits_are_cache_reads(server: OpenAIServer) -> None:
    chat = ChatStream(model="deepseek-chat").text("ok").finish("stop")
    chat._chunk(
        None,
        usage={
            "prompt_tokens": 100,
            "completion_tokens": 10,
            "total_tokens": 110,
            "prompt_cache_hit_tokens": 60,
            "prompt_cache_miss_tokens": 40,
        },
    )
    server.add(chat.stream())
    model = OpenAIChatModel("deepseek-chat", provider="deepseek", base_url=server.url, api_key="k")
    _, message = await collect(model, ask("x"))
    assert (message.usage.input_tokens, message.usage.cache_read_tokens) == (40, 60)
    assert [CHAT.sent(b) for b in server.bodies] == [("deepseek-chat", True, [("user", "x")])]
    # deepseek-chat: $0.28 cache miss, $0.028 cache hit, $0.42 output per million tokens.
    assert message.usage.cost_usd == pytest.approx((40 * 0.28 + 60 * 0.028 + 10 * 0.42) / 1e6)


async def test_unknown_price_is_none_and_missing_usage_is_unknown(server: OpenAIServer) -> None:
    server.add(ChatStream().text("a").finish("stop").usage(10, 2).stream())
    server.add(ChatStream().text("b").finish("stop").stream())
    local = OpenAIChatModel("qwen3", provider="ollama", base_url=server.url)
    _, priced = await collect(local, ask("x"))
    assert priced.usage.input_tokens == 10
    assert priced.usage.cost_usd is None
    _, unreported = await collect(CHAT.model(server), ask("x"))
    assert unreported.usage.total_tokens == 0
    assert unreported.usage.cost_usd is None


async def test_images_in_user_messages_and_tool_results(server: OpenAIServer) -> None:
    server.add(chat_text("A red dot."))
    messages: list[Message] = [
        UserMessage([TextContent("What is this?"), ImageContent(PIXEL, "image/png")]),
        AssistantMessage([ToolCall("call_s", "screenshot", {})], "tool_use"),
        ToolResultMessage(
            "call_s", "screenshot", [TextContent("captured"), ImageContent(PIXEL, "image/png")]
        ),
        UserMessage.of("And now?"),
    ]
    await collect(CHAT.model(server), ModelRequest(messages))
    sent = server.requests[0].body["messages"]
    url = f"data:image/png;base64,{PIXEL}"
    assert sent[0]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]
    # A tool message carries text only: the image follows as a user message.
    assert sent[2] == {
        "role": "tool",
        "tool_call_id": "call_s",
        "content": "captured\n[1 image attached in the next user message]",
    }
    assert sent[3]["role"] == "user"
    assert sent[3]["content"][0]["text"] == (
        "Images returned by the tool 'screenshot' (call call_s):"
    )
    assert sent[3]["content"][1] == {"type": "image_url", "image_url": {"url": url}}
    assert sent[4] == {"role": "user", "content": "And now?"}


async def test_system_prompt_and_extra_settings(server: OpenAIServer) -> None:
    server.add(chat_text("ok"))
    settings = ModelSettings(extra={"seed": 7, "reasoning_effort": "low"})
    request = ModelRequest([UserMessage.of("x")], system_prompt="Be brief.", settings=settings)
    await collect(CHAT.model(server), request)
    body = server.requests[0].body
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert (body["seed"], body["reasoning_effort"]) == (7, "low")


async def test_a_stream_ending_after_finish_reason_without_done_is_complete(
    server: OpenAIServer,
) -> None:
    server.add(ChatStream().text("Done.").finish("stop").usage(4, 2).stream(done=False))
    _, message = await collect(CHAT.model(server), ask("x"))
    assert message.text == "Done."
    assert message.stop_reason == "stop"
    assert message.usage.input_tokens == 4
    assert len(server.requests) == 1


async def test_a_connection_lost_after_finish_reason_keeps_the_answer(
    server: OpenAIServer,
) -> None:
    server.add(ChatStream().text("Whole answer.").finish("stop").stream(done=False, cut=True))
    _, message = await collect(CHAT.model(server), ask("x"))
    assert message.text == "Whole answer."
    assert message.stop_reason == "stop"


async def test_done_without_finish_reason_is_complete(server: OpenAIServer) -> None:
    server.add(ChatStream().text("Fine.").stream(done=True))
    _, message = await collect(CHAT.model(server), ask("x"))
    assert message.text == "Fine."
    assert message.stop_reason == "stop"


async def test_replays_the_conversation_in_order(server: OpenAIServer) -> None:
    server.add(chat_text("3"))
    history: list[Message] = [
        UserMessage.of("1+2?"),
        AssistantMessage(
            [TextContent("Let me add."), ToolCall("c1", "add", {"a": 1, "b": 2})], "tool_use"
        ),
        ToolResultMessage("c1", "add", [TextContent("3")]),
        AssistantMessage([TextContent("It is 3.")], "stop"),
        UserMessage.of("Sure?"),
    ]
    await collect(CHAT.model(server), ModelRequest(history))
    roles = [m["role"] for m in server.requests[0].body["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    assistant: dict[str, Any] = server.requests[0].body["messages"][1]
    assert assistant["content"] == "Let me add."
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"a": 1, "b": 2}


def _echo_plan(recorded: Recorded) -> Stream:
    return chat_text(recorded.headers.get("x-team", "none"))


async def test_extra_headers_are_sent(server: OpenAIServer) -> None:
    server.add(_echo_plan)
    model = CHAT.model(server, headers={"X-Team": "blue"})
    _, message = await collect(model, ask("x"))
    assert message.text == "blue"


async def test_reasoning_round_trip_through_an_agent(server: OpenAIServer) -> None:
    """DeepSeek-style thinking with a tool call: the next request must carry it back."""
    server.add(
        ChatStream(model="deepseek-reasoner")
        .reasoning("I need ", "the sum.")
        .tool_call(0, "call_r1", "add")
        .tool_args(0, '{"a": 20, "b": 22}')
        .finish("tool_calls")
        .stream()
    )

    def check(recorded: Recorded) -> Stream:
        assistant = recorded.body["messages"][1]
        ok = assistant.get("reasoning_content") == "I need the sum."
        return chat_text("42" if ok else f"reasoning lost: {assistant}")

    server.add(check)

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = OpenAIChatModel(
        "deepseek-reasoner", provider="deepseek", base_url=server.url, api_key="k"
    )
    result = await Agent(model, tools=[add], execution=Execution(retry=FAST_RETRY)).run("20+22?")
    assert result.text == "42"
    first = result.messages[1]
    assert isinstance(first, AssistantMessage)
    assert first.content[0] == ThinkingContent("I need the sum.")


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (None, None),
        ("required", "required"),
        ("add", {"type": "function", "function": {"name": "add"}}),
    ],
)
async def test_tool_choice_is_sent_as_the_api_spells_it(
    server: OpenAIServer, choice: str | None, sent: object
) -> None:
    server.add(
        ChatStream().tool_call(0, "c1", "add").tool_args(0, "{}").finish("tool_calls").stream()
    )
    request = ask("4+5?", tools=[ADD])
    request.settings = ModelSettings(tool_choice=choice)
    await collect(CHAT.model(server), request)
    assert server.requests[0].body.get("tool_choice") == sent
