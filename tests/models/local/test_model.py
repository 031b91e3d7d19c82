"""The embedded model, for real: streaming, usage, stop reasons, tools, cancellation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tiller import Agent, tool
from tiller.errors import ContextOverflowError
from tiller.events import MessageUpdate, ModelLoading, TextDelta, ToolCallDelta
from tiller.messages import AssistantMessage, TextContent, UserMessage
from tiller.models import ModelRequest, ModelSettings, ToolSpec
from tiller.models.local import LocalModel, runtime
from tiller.models.local.chat import ChatTemplate, chat_messages
from tiller.models.local.weights import bundled_smollm2
from tiller.models.registry import resolve_model


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city."""
    return f"18 degrees {unit} and sunny in {city}"


async def collect(model: LocalModel, request: ModelRequest) -> list[Any]:
    """The stream's deltas and final message; a first use's `model_loading` comes first."""
    items = [item async for item in model.stream(request)]
    if items and isinstance(items[0], ModelLoading):
        items = items[1:]
    assert not any(isinstance(item, ModelLoading) for item in items)
    return items


async def test_text_streams_with_usage_from_the_tokenizer() -> None:
    model = LocalModel()
    request = ModelRequest([UserMessage.of("Say hello.")], settings=ModelSettings(max_tokens=24))
    *deltas, message = await collect(model, request)
    assert deltas
    assert all(isinstance(d, TextDelta) for d in deltas)
    assert isinstance(message, AssistantMessage)
    assert message.text == "".join(d.text for d in deltas).strip()
    assert message.stop_reason in ("stop", "length")
    assert message.provider == "local"
    decoder, template = model._load()
    prompt = template.render(chat_messages(request, offer_tools=False))
    assert message.usage.input_tokens == len(decoder.tokenize(prompt))
    assert 0 < message.usage.output_tokens <= 24
    assert message.usage.cost_usd == 0.0


async def test_max_tokens_gives_a_length_stop() -> None:
    request = ModelRequest(
        [UserMessage.of("Write a long story about a dragon.")],
        settings=ModelSettings(max_tokens=3),
    )
    *_, message = await collect(LocalModel(), request)
    assert message.stop_reason == "length"
    assert message.usage.output_tokens == 3


def test_the_model_is_loaded_once_and_shared() -> None:
    a, b = LocalModel(), resolve_model("local:smollm2")
    assert isinstance(b, LocalModel)
    assert a._load()[0].model is b._load()[0].model
    path_model = resolve_model(f"local:{bundled_smollm2()}")
    assert path_model._load()[0].model is a._load()[0].model  # type: ignore[attr-defined]


async def test_forced_tool_call_has_schema_valid_arguments() -> None:
    model = LocalModel(tool_threshold=-1e9)  # always take the tool path
    request = ModelRequest(
        [UserMessage.of("What's the weather in Paris?")],
        tools=[ToolSpec(get_weather.name, get_weather.description, get_weather.parameters)],
        settings=ModelSettings(max_tokens=64),
    )
    *deltas, message = await collect(model, request)
    assert all(isinstance(d, ToolCallDelta) for d in deltas)
    (call,) = message.tool_calls
    assert message.stop_reason == "tool_use"
    assert call.name == "get_weather"
    assert json.loads("".join(d.arguments for d in deltas)) == call.arguments
    get_weather.validate(call.arguments)  # raises if the arguments miss the schema


async def test_a_grammar_cut_short_is_a_length_stop_not_broken_json() -> None:
    model = LocalModel(tool_threshold=-1e9)
    request = ModelRequest(
        [UserMessage.of("What's the weather in Paris?")],
        tools=[ToolSpec(get_weather.name, get_weather.description, get_weather.parameters)],
        settings=ModelSettings(max_tokens=2),
    )
    *_, message = await collect(model, request)
    assert message.stop_reason == "length"
    assert message.tool_calls == []


async def test_a_tool_round_trip_with_an_agent() -> None:
    agent = Agent(LocalModel(tool_threshold=-1e9), tools=[get_weather])
    result = await agent.run("What's the weather in Paris?")
    calls = [b for m in result.messages if isinstance(m, AssistantMessage) for b in m.tool_calls]
    assert len(calls) == 1
    # After the tool result the model answers in text (tools are not offered again).
    assert result.stop_reason in ("stop", "length")
    assert result.text


async def test_the_event_loop_stays_live_while_generating() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    try:
        request = ModelRequest(
            [UserMessage.of("Tell me about the moon.")], settings=ModelSettings(max_tokens=48)
        )
        await collect(LocalModel(), request)
    finally:
        task.cancel()
    assert ticks > 3


async def test_abort_stops_generation_promptly() -> None:
    agent = Agent("local:smollm2", settings=ModelSettings(max_tokens=2000))
    seen = 0

    def on_event(event: Any) -> None:
        nonlocal seen
        if isinstance(event, MessageUpdate):
            seen += 1
            if seen == 5:
                agent.abort()

    agent.subscribe(on_event)
    result = await asyncio.wait_for(agent.run("Write a very long essay about rivers."), 30)
    assert result.stop_reason == "aborted"
    assert seen < 40  # stopped within a few tokens, not after 2,000
    # The model is free again for the next run.
    again = ModelRequest([UserMessage.of("Hi")], settings=ModelSettings(max_tokens=4))
    *_, message = await collect(LocalModel(), again)
    assert isinstance(message, AssistantMessage)


async def test_a_prompt_longer_than_the_context_is_compacted_or_clear() -> None:
    model = LocalModel(n_ctx=512)
    with pytest.raises(ContextOverflowError, match="context window of 512"):
        await collect(model, ModelRequest([UserMessage.of("word " * 2000)]))
    history = [UserMessage([TextContent(f"note {i}: " + "word " * 100)]) for i in range(8)]
    agent = Agent(model, history=history, settings=ModelSettings(max_tokens=16))
    result = await agent.run("Summarise.")
    assert result.stop_reason in ("stop", "length")
    assert agent.last_stats is not None
    assert agent.last_stats.compactions == 1


def test_chat_template_from_the_model_file() -> None:
    model = LocalModel()
    _, template = model._load()
    assert isinstance(template, ChatTemplate)
    text = template.render([{"role": "user", "content": "hi"}])
    assert text.endswith("<|im_start|>assistant\n")


def test_threads_leave_a_core_free(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from tiller.errors import ConfigError

    monkeypatch.delenv("TILLER_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert runtime.decode_threads() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert runtime.decode_threads() == 4
    monkeypatch.setenv("TILLER_LOCAL_THREADS", "3")
    assert runtime.decode_threads() == 3
    monkeypatch.setenv("TILLER_LOCAL_THREADS", "many")
    with pytest.raises(ConfigError, match="not a whole number"):
        runtime.decode_threads()


def test_counts_tokens_with_its_own_tokenizer() -> None:
    model = LocalModel()
    decoder, _ = model._load()
    text = "Tokens, counted exactly: naïve café ☕"
    assert model.count_tokens(text) == len(decoder.tokenize(text))
    from tiller.context.token_counters import counter_for_model

    assert counter_for_model(model)(text) == model.count_tokens(text)


async def test_a_prompt_with_undecodable_bytes_does_not_break_the_model() -> None:
    agent = Agent("local:smollm2", settings=ModelSettings(max_tokens=8))
    result = await agent.run("what is in caf\udce9.txt?")
    assert result.stop_reason in ("stop", "length")
    agent.to_json().encode("utf-8", "backslashreplace")


def test_the_same_call_twice_is_one_call() -> None:
    from tiller.messages import ToolCall
    from tiller.models.local.model import _same_call

    a = ToolCall("1", "get_weather", {"city": "Oslo"})
    assert _same_call(a, ToolCall("2", "get_weather", {"city": "oslo"}))
    assert not _same_call(a, ToolCall("2", "get_weather", {"city": "Paris"}))
    assert not _same_call(a, ToolCall("2", "get_time", {"city": "Oslo"}))
