"""Cancelling a run: stop reason `aborted`, running tools cancelled, history continuable."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import Recorder, config
from tiller import CancelToken, ToolContext, tool
from tiller.errors import OverloadedError
from tiller.events import AgentEnd, MessageUpdate, ToolExecutionStart, TurnEnd
from tiller.loop import agent_loop, agent_loop_continue
from tiller.loop.options import Execution, Governance
from tiller.loop.tool_execution import ABORTED_TEXT
from tiller.messages import AssistantMessage, ToolResultMessage, UserMessage
from tiller.models import Reply, RetryPolicy, ScriptedModel, call
from tiller.models.scripted import Fail


async def test_cancel_during_streaming_keeps_the_partial_text() -> None:
    cancel = CancelToken()
    rec = Recorder()

    def sink(event: object) -> None:
        rec(event)  # type: ignore[arg-type]
        if isinstance(event, MessageUpdate) and len(rec.of(MessageUpdate)) == 3:
            asyncio.get_running_loop().call_soon(cancel.cancel)

    text = "one two three four five six"
    model = ScriptedModel([Reply(text, chunk_size=3, delay_s=0.01)])
    new = await agent_loop("q", [], config(model), sink, cancel)
    last = new[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted"
    assert last.text == text[:9]  # the three chunks that streamed
    stats = rec.of(AgentEnd)[0].stats
    assert stats.stop_reason == "aborted"
    assert stats.stopped_by == "aborted"
    assert len(rec.of(TurnEnd)) == 1


async def test_cancel_during_tools_cancels_them_and_every_call_gets_a_result() -> None:
    cancel = CancelToken()
    cancelled_inside: list[str] = []
    started = asyncio.Event()

    @tool
    async def forever(name: str, ctx: ToolContext) -> str:
        """Runs until cancelled."""
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled_inside.append(name)
            raise
        return "unreachable"

    @tool
    async def quick() -> str:
        """Returns at once."""
        return "quick done"

    model = ScriptedModel(
        [Reply(calls=[call("quick"), call("forever", name="a"), call("forever", name="b")])]
    )
    rec = Recorder()
    run = asyncio.create_task(agent_loop("go", [], config(model, [quick, forever]), rec, cancel))
    await started.wait()
    cancel.cancel()
    new = await asyncio.wait_for(run, timeout=5)

    assert sorted(cancelled_inside) == ["a", "b"]
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == ["quick done", ABORTED_TEXT, ABORTED_TEXT]
    assert rec.of(AgentEnd)[0].stats.stop_reason == "aborted"
    assert len(rec.of(TurnEnd)) == 1

    # The history is valid: every call has its result, so a later run can continue it.
    follow = ScriptedModel(["resumed"])
    more = await agent_loop_continue(new, config(follow, [quick, forever]))
    assert more[-1].text == "resumed"


async def test_cancel_during_sequential_tools_marks_the_rest_aborted() -> None:
    from tiller.loop import Sequential

    cancel = CancelToken()

    @tool
    async def step(n: int) -> str:
        """The second step cancels the run from inside."""
        if n == 1:
            cancel.cancel()
            await asyncio.sleep(10)
        return f"step {n}"

    model = ScriptedModel([Reply(calls=[call("step", n=i) for i in range(4)])])
    new = await agent_loop(
        "go", [], config(model, [step], execution=Execution(tool_calls=Sequential())), None, cancel
    )
    results = [m.text for m in new if isinstance(m, ToolResultMessage)]
    assert results == ["step 0", ABORTED_TEXT, ABORTED_TEXT, ABORTED_TEXT]


async def test_cancel_while_waiting_to_retry() -> None:
    cancel = CancelToken()
    rec = Recorder()

    def sink(event: object) -> None:
        rec(event)  # type: ignore[arg-type]
        if getattr(event, "type", "") == "retry":
            asyncio.get_running_loop().call_soon(cancel.cancel)

    model = ScriptedModel([Fail(OverloadedError("busy"))] * 3)
    policy = RetryPolicy(max_retries=3, base_delay_s=30)
    new = await asyncio.wait_for(
        agent_loop("q", [], config(model, execution=Execution(retry=policy)), sink, cancel),
        timeout=5,
    )
    assert new[-1].stop_reason == "aborted"  # type: ignore[union-attr]
    assert rec.types[-1] == "agent_end"


async def test_cancelling_from_inside_the_loop_stops_at_the_next_checkpoint() -> None:
    cancel = CancelToken()

    @tool
    async def stopper() -> str:
        """Cancels the run and returns normally."""
        cancel.cancel()
        return "asked to stop"

    model = ScriptedModel([Reply(calls=[call("stopper")]), Reply("never")])
    new = await agent_loop("go", [], config(model, [stopper]), None, cancel)
    assert [m.text for m in new if isinstance(m, ToolResultMessage)] == ["asked to stop"]
    assert model.remaining == 1


async def test_an_outside_task_cancellation_still_propagates() -> None:
    model = ScriptedModel([Reply("slow " * 100, chunk_size=1, delay_s=0.01)])
    rec = Recorder()
    task = asyncio.create_task(agent_loop("q", [], config(model), rec))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.types[-1] == "agent_end"


async def test_no_tool_starts_after_cancellation() -> None:
    cancel = CancelToken()
    cancel.cancel()
    rec = Recorder()
    model = ScriptedModel([Reply(calls=[call("x")])])
    new = await agent_loop("q", [UserMessage.of("hi")], config(model), rec, cancel)
    assert not rec.of(ToolExecutionStart)
    assert rec.of(AgentEnd)[0].stats.stop_reason == "aborted"
    assert [m.text for m in new] == ["q"]


# ── an abort requested from inside the run takes effect at once ─────────────


async def test_abort_from_a_turn_start_listener_makes_no_model_call() -> None:
    from tiller.agent import Agent
    from tiller.events import AgentEvent, TurnStart

    model = ScriptedModel(["never"])
    agent = Agent(model)

    def listener(event: AgentEvent) -> None:
        if isinstance(event, TurnStart):
            agent.abort()

    agent.subscribe(listener)
    result = await agent.run("hi")
    assert model.requests == []
    assert result.stop_reason == "aborted"


async def test_a_guard_hook_that_denies_and_aborts_stops_the_rest_of_a_sequential_batch() -> None:
    from typing import Any

    from tiller.agent import Agent
    from tiller.loop import Sequential
    from tiller.loop.hooks import Deny

    ran: list[str] = []

    @tool
    async def shell(command: str) -> str:
        """Run a command."""
        ran.append(command)
        return "ok"

    def guard(name: str, call_id: str, arguments: dict[str, Any]) -> Deny | None:
        if "rm -rf /" in arguments["command"]:
            agent.abort()
            return Deny("refusing to delete everything")
        return None

    model = ScriptedModel(
        [
            Reply(
                calls=[
                    call("shell", command="ls"),
                    call("shell", command="rm -rf /"),
                    call("shell", command="echo after"),
                ]
            ),
            Reply("never"),
        ]
    )
    agent = Agent(
        model,
        tools=[shell],
        governance=Governance(before_tool_execution=guard),
        execution=Execution(tool_calls=Sequential()),
    )
    result = await agent.run("clean up")
    assert ran == ["ls"]
    assert len(model.requests) == 1
    assert result.stop_reason == "aborted"
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.is_error for r in results] == [False, True, True]
    assert "refusing to delete everything" in results[1].text
    assert results[2].text == ABORTED_TEXT


@pytest.mark.parametrize("strategy", ["sequential", "parallel"])
async def test_abort_from_a_tool_start_listener_runs_no_later_call(strategy: str) -> None:
    from tiller.agent import Agent
    from tiller.events import AgentEvent
    from tiller.loop import Parallel, Sequential

    ran: list[int] = []

    @tool
    async def step(n: int) -> str:
        """One step."""
        ran.append(n)
        return f"step {n}"

    model = ScriptedModel([Reply(calls=[call("step", n=i) for i in range(3)]), Reply("never")])
    chosen = Sequential() if strategy == "sequential" else Parallel()
    agent = Agent(model, tools=[step], execution=Execution(tool_calls=chosen))

    def listener(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStart):
            agent.abort()

    agent.subscribe(listener)
    result = await agent.run("go")
    assert ran == []
    assert result.stop_reason == "aborted"
    assert len(model.requests) == 1
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 3
    assert all(r.is_error for r in results)


async def test_abort_from_a_tool_makes_no_further_model_call() -> None:
    from tiller.agent import Agent

    @tool
    async def stopper() -> str:
        """Aborts the run, then returns."""
        agent.abort()
        return "asked to stop"

    model = ScriptedModel([Reply(calls=[call("stopper")]), Reply("never")])
    agent = Agent(model, tools=[stopper])
    result = await agent.run("go")
    assert len(model.requests) == 1
    assert result.stop_reason == "aborted"


async def test_a_task_cancelled_from_outside_ends_aborted_with_every_call_answered() -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Blocks."""
        started.set()
        await asyncio.sleep(3600)
        return "never"

    model = ScriptedModel([Reply(calls=[call("wait_forever")])])
    rec = Recorder()
    task = asyncio.create_task(agent_loop("q", [], config(model, [wait_forever]), rec))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (end,) = rec.of(AgentEnd)
    assert end.stats.stop_reason == "aborted"
    assert end.stats.stopped_by == "cancelled"
    results = [m for m in end.messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 1
    assert results[0].is_error
