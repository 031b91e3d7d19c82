"""`Agent`: runs, streaming, steering, abort, busy, save and restore."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from tiller import Agent, RunFailedError, tool
from tiller.errors import AgentBusyError, AuthError, UsageError
from tiller.events import AgentEnd, AgentEvent
from tiller.loop import Limits
from tiller.loop.options import Execution
from tiller.messages import ToolResultMessage, Usage
from tiller.models import Fail, Reply, ScriptedModel, call


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_run_returns_text_messages_usage_cost_and_stop_reason() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("add", a=2, b=3)], usage=Usage(10, 5, cost_usd=0.001)),
            Reply("5", usage=Usage(20, 1, cost_usd=0.002)),
        ]
    )
    agent = Agent(model, tools=[add], system_prompt="Be brief.")
    result = await agent.run("2+3?")
    assert result.text == "5"
    assert result.stop_reason == "stop"
    assert result.turns == 2
    assert result.usage.input_tokens == 30
    assert result.cost_usd == pytest.approx(0.003)
    assert len(result.messages) == 4
    assert agent.messages == result.messages
    assert result.raise_for_error() is result


async def test_history_accumulates_across_runs() -> None:
    model = ScriptedModel(["first", "second"])
    agent = Agent(model)
    await agent.run("one")
    await agent.run("two")
    assert [m.text for m in agent.messages] == ["one", "first", "two", "second"]
    assert len(model.requests[1].messages) == 3


async def test_plain_functions_become_tools() -> None:
    def mul(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    agent = Agent(ScriptedModel([Reply(calls=[call("mul", a=3, b=4)]), "12"]), tools=[mul])
    result = await agent.run("3*4")
    assert [m.text for m in result.messages if isinstance(m, ToolResultMessage)] == ["12"]


async def test_model_errors_are_results_not_exceptions() -> None:
    agent = Agent(ScriptedModel([Fail(AuthError("invalid x-api-key"))]))
    result = await agent.run("hi")
    assert result.stop_reason == "error"
    assert result.error == "auth: invalid x-api-key"
    with pytest.raises(RunFailedError, match="invalid x-api-key"):
        result.raise_for_error()


async def test_stream_yields_every_event_in_order() -> None:
    agent = Agent(ScriptedModel([Reply(calls=[call("add", a=1, b=1)]), "2"]), tools=[add])
    types = [event.type async for event in agent.stream("1+1")]
    assert types[0] == "agent_start"
    assert types[-1] == "agent_end"
    assert "tool_execution_end" in types
    assert len(agent.messages) == 4


async def test_leaving_a_stream_early_aborts_the_run() -> None:
    agent = Agent(ScriptedModel([Reply("word " * 100, chunk_size=5, delay_s=0.01)]))
    async with contextlib.aclosing(agent.stream("talk")) as events:
        async for event in events:
            if event.type == "message_update":
                break
    assert not agent.is_running
    assert agent.last_stats is not None
    assert agent.last_stats.stop_reason == "aborted"


async def test_a_dropped_stream_is_aborted_when_collected() -> None:
    agent = Agent(ScriptedModel([Reply("word " * 100, chunk_size=5, delay_s=0.01)]))
    async for event in agent.stream("talk"):
        if event.type == "message_update":
            break
    for _ in range(100):
        if not agent.is_running:
            break
        await asyncio.sleep(0.01)
    assert agent.last_stats is not None
    assert agent.last_stats.stop_reason == "aborted"


async def test_a_second_run_while_one_is_going_is_refused() -> None:
    agent = Agent(ScriptedModel([Reply("slow " * 20, chunk_size=5, delay_s=0.01), "x"]))
    first = asyncio.create_task(agent.run("one"))
    await asyncio.sleep(0.02)
    with pytest.raises(AgentBusyError, match="already running"):
        await agent.run("two")
    with pytest.raises(AgentBusyError):
        agent.load_json('{"messages": []}')
    await first
    assert not agent.is_running


async def test_steer_interrupts_and_follow_up_waits() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    @tool
    async def slow(n: int) -> str:
        """Takes a while."""
        started.set()
        await release.wait()
        return f"slow {n}"

    from tiller.loop import Sequential

    model = ScriptedModel(
        [Reply(calls=[call("slow", n=1), call("slow", n=2)]), "steered answer", "follow-up answer"]
    )
    agent = Agent(model, tools=[slow], execution=Execution(tool_calls=Sequential()))
    run = asyncio.create_task(agent.run("work"))
    await started.wait()
    agent.steer("change of plan")
    agent.follow_up("one more thing")
    release.set()
    result = await run
    texts = [m.text for m in result.messages]
    assert texts == [
        "work",
        "",
        "slow 1",
        "Skipped due to queued user message.",
        "change of plan",
        "steered answer",
        "one more thing",
        "follow-up answer",
    ]


async def test_abort_ends_the_run_aborted_and_history_continues() -> None:
    started = asyncio.Event()

    @tool
    async def forever() -> str:
        """Never ends by itself."""
        started.set()
        await asyncio.sleep(60)
        return "x"

    agent = Agent(ScriptedModel([Reply(calls=[call("forever")]), "after"]), tools=[forever])
    run = asyncio.create_task(agent.run("go"))
    await started.wait()
    agent.abort()
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "aborted"
    resumed = await agent.resume()
    assert resumed.text == "after"


async def test_abort_from_another_thread() -> None:
    agent = Agent(ScriptedModel([Reply("word " * 200, chunk_size=5, delay_s=0.005)]))
    run = asyncio.create_task(agent.run("talk"))
    await asyncio.sleep(0.02)
    thread = threading.Thread(target=agent.abort)
    thread.start()
    thread.join()
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "aborted"


async def test_a_failing_listener_does_not_break_the_run(caplog: Any) -> None:
    agent = Agent(ScriptedModel(["ok"]))
    seen: list[AgentEvent] = []

    def bad(event: AgentEvent) -> None:
        raise RuntimeError("listener bug")

    agent.subscribe(bad)
    unsubscribe = agent.subscribe(seen.append)
    result = await agent.run("hi")
    assert result.text == "ok"
    assert isinstance(seen[-1], AgentEnd)
    assert "listener failed" in caplog.text
    unsubscribe()
    unsubscribe()


def test_run_sync() -> None:
    agent = Agent(ScriptedModel(["sync ok"]))
    assert agent.run_sync("hi").text == "sync ok"


async def test_run_sync_inside_a_loop_is_refused() -> None:
    with pytest.raises(UsageError, match="running event loop"):
        Agent(ScriptedModel(["x"])).run_sync("hi")


async def test_empty_prompt_is_refused() -> None:
    agent = Agent(ScriptedModel(["x"]))
    with pytest.raises(UsageError, match="prompt is empty"):
        await agent.run("  ")
    assert not agent.is_running
    assert agent.messages == []


async def test_save_and_restore_round_trip(tmp_path: Path) -> None:
    agent = Agent(
        ScriptedModel([Reply(calls=[call("add", a=1, b=2)]), "3"]),
        tools=[add],
        execution=Execution(limits=Limits(max_turns=5)),
    )
    await agent.run("1+2")
    path = tmp_path / "history.json"
    agent.save(path)
    restored = Agent(ScriptedModel(["and more"]))
    restored.load(path)
    assert restored.messages == agent.messages
    await restored.run("again")
    assert len(restored.messages) == 6
    assert sorted(os.listdir(tmp_path)) == ["history.json"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{oops", "not valid JSON"),
        ("[]", "'messages' list"),
        (json.dumps({"messages": [{"role": "alien"}]}), "malformed message"),
        (json.dumps({"messages": [{"role": "user"}]}), "malformed message"),
    ],
)
def test_loading_a_bad_history_is_clear_and_keeps_the_current_one(text: str, message: str) -> None:
    agent = Agent(ScriptedModel(), history=[])
    agent.messages.append(ToolResultMessage("c", "t", []))
    before = list(agent.messages)
    with pytest.raises(UsageError, match=message):
        agent.load_json(text)
    assert agent.messages == before


def test_a_failed_save_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text("old")
    agent = Agent(ScriptedModel())
    agent.messages.append(ToolResultMessage("c", "t", [], details=object()))  # not JSON-able
    with pytest.raises(TypeError):
        agent.save(path)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["h.json"]


async def test_queued_messages_can_be_dropped() -> None:
    model = ScriptedModel(["only answer"])
    agent = Agent(model)
    agent.steer("late steer")
    agent.follow_up("late follow-up")
    dropped = agent.clear_queued()
    assert [m.text for m in dropped] == ["late steer", "late follow-up"]
    result = await agent.run("hi")
    assert [m.text for m in result.messages] == ["hi", "only answer"]


def test_an_agent_refuses_two_tools_with_one_name(tmp_path: Path) -> None:
    from tiller.errors import ConfigError
    from tiller.tools.builtin import builtin_tools

    def read_file(path: str) -> str:
        """Read any file on the machine."""
        return Path(path).read_text()

    with pytest.raises(ConfigError, match="'read_file'"):
        Agent(ScriptedModel(), tools=[*builtin_tools(["read_file"], tmp_path), read_file])
