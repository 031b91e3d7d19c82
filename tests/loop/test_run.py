"""The loop as a whole: event order and pairing, continuation, bad input."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import Recorder, config
from tiller import tool
from tiller.errors import InvalidHistoryError, NetworkError, UsageError
from tiller.events import AgentEnd, MessageUpdate, TextDelta, TurnEnd, TurnStart
from tiller.loop import agent_loop, agent_loop_continue
from tiller.loop.options import Execution
from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    Message,
    ToolResultMessage,
    UserMessage,
)
from tiller.models import Fail, Reply, RetryPolicy, ScriptedModel, call


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def assert_well_formed(types: list[str]) -> None:
    assert types[0] == "agent_start"
    assert types[-1] == "agent_end"
    assert types.count("agent_end") == 1
    depth = 0
    for t in types:
        if t == "turn_start":
            assert depth == 0
            depth += 1
        elif t == "turn_end":
            assert depth == 1
            depth -= 1
    assert depth == 0


async def test_a_tool_run_emits_the_documented_event_sequence() -> None:
    model = ScriptedModel([Reply(calls=[call("add", a=1, b=2)]), Reply("three", chunk_size=2)])
    rec = Recorder()
    new = await agent_loop("add 1 and 2", [], config(model, [add]), rec)
    assert rec.types == [
        "agent_start",
        "message_start",  # the prompt
        "message_end",
        "turn_start",
        "message_start",
        "message_update",  # tool-call argument fragment
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",  # the tool result
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_update",
        "message_update",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    deltas = [e.delta for e in rec.of(MessageUpdate) if isinstance(e.delta, TextDelta)]
    assert "".join(d.text for d in deltas) == "three"
    assert [type(m) for m in new] == [
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        AssistantMessage,
    ]
    end = rec.of(AgentEnd)[0]
    assert end.messages == new
    assert end.stats.turns == 2
    assert end.stats.stop_reason == "stop"
    turn_ends = rec.of(TurnEnd)
    assert [len(t.tool_results) for t in turn_ends] == [1, 0]
    assert {e.loop_id for e in rec.events} == {end.loop_id}


async def test_the_history_passed_in_is_not_changed() -> None:
    history: list[Any] = [UserMessage.of("hi"), AssistantMessage([], "stop")]
    snapshot = list(history)
    await agent_loop("again", history, config(ScriptedModel(["ok"])))
    assert history == snapshot


async def test_the_model_sees_the_system_prompt_tools_and_history() -> None:
    model = ScriptedModel(["ok"])
    history: list[Message] = [UserMessage.of("earlier"), ExtensionMessage("note", "ui only")]
    await agent_loop("now", history, config(model, [add], system_prompt="Be brief."))
    (request,) = model.requests
    assert request.system_prompt == "Be brief."
    assert [t.name for t in request.tools] == ["add"]
    assert request.tools[0].parameters["properties"].keys() == {"a", "b"}
    # Extension messages are for people, never for the model.
    assert [m.text for m in request.messages] == ["earlier", "now"]


async def test_continue_runs_from_tool_results() -> None:
    first = ScriptedModel([Reply(calls=[call("add", a=2, b=2)]), Reply("four")])
    new = await agent_loop("sum", [], config(first, [add]))
    history = new[:3]  # prompt, assistant call, tool result
    model = ScriptedModel(["it is four"])
    more = await agent_loop_continue(history, config(model, [add]))
    assert [m.text for m in more] == ["it is four"]
    assert model.requests[0].messages[-1] == history[-1]


async def test_continue_refuses_an_empty_history() -> None:
    with pytest.raises(InvalidHistoryError, match="empty history"):
        await agent_loop_continue([], config(ScriptedModel()))


async def test_continue_refuses_a_history_ending_with_the_assistant() -> None:
    history: list[Message] = [
        UserMessage.of("hi"),
        AssistantMessage([], "stop"),
        ExtensionMessage("note"),
    ]
    with pytest.raises(InvalidHistoryError, match="ends with an assistant message"):
        await agent_loop_continue(history, config(ScriptedModel()))


@pytest.mark.parametrize("prompt", ["", "   \n", []])
async def test_an_empty_prompt_is_refused_before_anything_runs(prompt: Any) -> None:
    model = ScriptedModel(["never"])
    rec = Recorder()
    with pytest.raises(UsageError, match="prompt is empty"):
        await agent_loop(prompt, [], config(model), rec)
    assert rec.events == []
    assert model.requests == []


async def test_a_stream_failing_midway_ends_the_run_with_an_error_message() -> None:
    model = ScriptedModel(
        [Reply("partial ans", chunk_size=4, fail=NetworkError("connection reset"))]
    )
    rec = Recorder()
    new = await agent_loop(
        "q", [], config(model, execution=Execution(retry=RetryPolicy(max_retries=0))), rec
    )
    last = new[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "error"
    assert last.text == "partial ans"
    assert last.error_message == "network: connection reset"
    end = rec.of(AgentEnd)[0]
    assert end.stats.stop_reason == "error"
    assert end.stats.error == "network: connection reset"
    assert_well_formed(rec.types)


async def test_a_model_that_raises_anything_ends_the_run_cleanly() -> None:
    model = ScriptedModel([Fail(RuntimeError("provider bug"))])
    rec = Recorder()
    new = await agent_loop("q", [], config(model), rec)
    assert new[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert new[-1].error_message == "RuntimeError: provider bug"  # type: ignore[union-attr]
    assert_well_formed(rec.types)


async def test_a_run_out_of_script_is_an_error_not_a_crash() -> None:
    rec = Recorder()
    new = await agent_loop("q", [], config(ScriptedModel([])), rec)
    assert "no step left" in (new[-1].error_message or "")  # type: ignore[union-attr]
    assert_well_formed(rec.types)


async def test_turn_starts_and_ends_pair_up_with_tools() -> None:
    model = ScriptedModel([Reply(calls=[call("add", a=i, b=i)]) for i in range(3)] + ["done"])
    rec = Recorder()
    await agent_loop("go", [], config(model, [add]), rec)
    assert_well_formed(rec.types)
    assert [e.turn for e in rec.of(TurnStart)] == [1, 2, 3, 4]
    assert [e.turn for e in rec.of(TurnEnd)] == [1, 2, 3, 4]


async def test_two_tools_with_one_name_are_refused_before_anything_runs() -> None:
    from tiller.errors import ConfigError
    from tiller.tools.function_tool import FunctionTool

    def read_file(path: str) -> str:
        """An unconfined reader."""
        return open(path).read()

    mine = FunctionTool(read_file)
    other = FunctionTool(lambda path: "", name="read_file", description="Another reader.")
    model = ScriptedModel(["never"])
    with pytest.raises(ConfigError, match="two tools are named 'read_file'"):
        await agent_loop("hi", [], config(model, [mine, other]))
    assert model.requests == []
