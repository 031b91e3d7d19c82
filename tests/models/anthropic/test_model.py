"""Whole agent runs against the Messages API server: tool round trips, thinking kept
across turns, malformed arguments corrected, a slow stream aborted.

The server's answers depend on what it received, so a run only ends well if the
provider sent the right thing back (the tool result under the right id, the
thinking block with its signature, ...).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.models.anthropic.conftest import API_KEY
from tests.servers.anthropic_api import (
    AnthropicAPI,
    Received,
    RedactedThinking,
    Reply,
    Text,
    Thinking,
    ToolUse,
)
from tiller.agent import Agent
from tiller.events import AgentEnd, AgentEvent, MessageUpdate, TextDelta
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, ThinkingContent
from tiller.models.anthropic import AnthropicModel
from tiller.models.retry import RetryPolicy
from tiller.tools import tool

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.004)


@tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return f"Sunny, 21°C in {city}"


@tool
def get_time(city: str) -> str:
    """The local time in a city.

    Args:
        city: The city's name.
    """
    return f"14:05 in {city}"


def _results(received: Received) -> dict[str, dict[str, Any]]:
    """The tool results of the last user message, by tool_use_id."""
    last = received.messages[-1]
    return {b["tool_use_id"]: b for b in last["content"] if b["type"] == "tool_result"}


def _result_text(block: dict[str, Any]) -> str:
    return "".join(part["text"] for part in block.get("content", []) if part["type"] == "text")


async def test_tool_round_trip_answers_only_with_the_right_result(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    def answer(received: Received) -> Reply:
        results = _results(received)
        weather = results.get("toolu_01W")
        time = results.get("toolu_02T")
        if weather is None or time is None:
            return Reply([Text(f"MISSING RESULTS: {sorted(results)}")])
        if list(results) != ["toolu_01W", "toolu_02T"]:
            return Reply([Text("RESULTS OUT OF ORDER")])
        return Reply([Text(f"{_result_text(weather)}; it is {_result_text(time)}.")])

    api.script(
        Reply(
            [
                Text("Checking both."),
                ToolUse.of("toolu_01W", "get_weather", {"city": "Paris"}, piece=6),
                ToolUse.of("toolu_02T", "get_time", {"city": "Paris"}, piece=6),
            ],
            stop_reason="tool_use",
        ),
        answer,
    )
    agent = Agent(model, tools=[get_weather, get_time], execution=Execution(retry=FAST_RETRY))

    result = await agent.run("Weather and time in Paris?")

    assert result.text == "Sunny, 21°C in Paris; it is 14:05 in Paris."
    assert result.turns == 2
    second = api.requests[1]
    assert second.messages[1]["content"][1:] == [
        {"type": "tool_use", "id": "toolu_01W", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_02T", "name": "get_time", "input": {"city": "Paris"}},
    ]
    assert [t["name"] for t in second.body["tools"]] == ["get_weather", "get_time"]
    assert second.body["tools"][0]["input_schema"]["properties"]["city"]["type"] == "string"


async def test_thinking_and_its_signature_go_back_unchanged(api: AnthropicAPI) -> None:
    thought = "The user wants the weather; I should call get_weather for Oslo."

    def answer(received: Received) -> Reply:
        assistant = received.messages[1]["content"]
        expected = {"type": "thinking", "thinking": thought, "signature": "EqQBCkYIARgCKkD+sig"}
        if assistant[0] != expected:
            return Reply([Text(f"THINKING LOST: {assistant[0]}")])
        return Reply([Thinking("Now answer.", "sig-2"), Text("Sunny in Oslo.")])

    api.script(
        Reply(
            [
                Thinking(thought, "EqQBCkYIARgCKkD+sig", piece=7),
                ToolUse.of("toolu_w", "get_weather", {"city": "Oslo"}),
            ],
            stop_reason="tool_use",
        ),
        answer,
    )
    claude = AnthropicModel("claude-sonnet-4-5", api_key=API_KEY, base_url=api.url, thinking=2048)
    agent = Agent(claude, tools=[get_weather], execution=Execution(retry=FAST_RETRY))
    try:
        result = await agent.run("Weather in Oslo?")
    finally:
        await claude.aclose()

    assert result.text == "Sunny in Oslo."
    first = agent.messages[1]
    assert isinstance(first, AssistantMessage)
    assert first.content[0] == ThinkingContent(thought, "EqQBCkYIARgCKkD+sig")
    assert api.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


async def test_redacted_thinking_goes_back_unchanged(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    def answer(received: Received) -> Reply:
        block = received.messages[1]["content"][0]
        if block != {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a=="}:
            return Reply([Text(f"REDACTED THINKING LOST: {block}")])
        return Reply([Text("Done.")])

    api.script(
        Reply(
            [
                RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4a=="),
                ToolUse.of("toolu_w", "get_weather", {"city": "Rome"}),
            ],
            stop_reason="tool_use",
        ),
        answer,
    )
    agent = Agent(model, tools=[get_weather], execution=Execution(retry=FAST_RETRY))

    result = await agent.run("Weather in Rome?")

    assert result.text == "Done."


async def test_malformed_arguments_come_back_as_an_error_the_model_corrects(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    bad = ['{"city": "Li', "ma"]  # the closing quote and brace never come

    def correct(received: Received) -> Reply:
        result = _results(received).get("toolu_bad")
        if result is None or not result.get("is_error"):
            return Reply([Text(f"NO ERROR RESULT: {result}")])
        if received.messages[1]["content"][0]["input"] != {}:
            return Reply([Text("the API needs an object for input")])
        return Reply(
            [ToolUse.of("toolu_good", "get_weather", {"city": "Lima"}, piece=3)],
            stop_reason="tool_use",
        )

    def finish(received: Received) -> Reply:
        result = _results(received).get("toolu_good")
        if result is None or result.get("is_error"):
            return Reply([Text(f"SECOND CALL FAILED: {result}")])
        return Reply([Text(_result_text(result))])

    api.script(
        Reply([ToolUse("toolu_bad", "get_weather", bad)], stop_reason="tool_use"), correct, finish
    )
    agent = Agent(model, tools=[get_weather], execution=Execution(retry=FAST_RETRY))

    result = await agent.run("Weather in Lima?")

    assert result.text == "Sunny, 21°C in Lima"
    error_text = _result_text(_results(api.requests[1])["toolu_bad"])
    assert '{"city": "Lima' in error_text  # the model sees what it sent, whole


async def test_a_slow_stream_is_aborted_promptly(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(Reply([Text("word " * 400, piece=5)], delay_s=0.02))
    agent = Agent(model, execution=Execution(retry=FAST_RETRY))
    events: list[AgentEvent] = []

    def on_event(event: AgentEvent) -> None:
        events.append(event)
        updates = [e for e in events if isinstance(e, MessageUpdate)]
        if len(updates) == 3:
            agent.abort()

    agent.subscribe(on_event)

    result = await agent.run("Talk for a long time")

    assert result.stop_reason == "aborted"
    (end,) = [e for e in events if isinstance(e, AgentEnd)]
    assert end.stats.stop_reason == "aborted"
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted"
    streamed = "".join(
        e.delta.text
        for e in events
        if isinstance(e, MessageUpdate) and isinstance(e.delta, TextDelta)
    )
    assert last.text == streamed
    assert streamed.startswith("word word word")
    # The connection was closed: the server stopped writing long before the end.
    received = api.requests[0]
    for _ in range(500):
        if received.stream_closed:
            break
        await asyncio.sleep(0.01)
    assert received.stream_closed
    assert not received.stream_completed
    assert received.events_sent < 200  # of 406


def test_one_model_serves_runs_on_successive_event_loops(api: AnthropicAPI) -> None:
    api.script(Reply([Text("first")]), Reply([Text("second")]))
    claude = AnthropicModel("claude-sonnet-4-5", api_key=API_KEY, base_url=api.url)
    agent = Agent(claude, execution=Execution(retry=FAST_RETRY))

    first = agent.run_sync("one")  # each run_sync has its own event loop
    second = agent.run_sync("two")

    assert (first.text, second.text) == ("first", "second")
    assert [m["content"][0]["text"] for m in api.requests[1].messages] == ["one", "first", "two"]
