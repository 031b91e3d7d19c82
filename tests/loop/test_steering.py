"""Steering and follow-up messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import Recorder, config
from tiller import tool
from tiller.agent import Agent
from tiller.events import AgentEvent, ToolExecutionEnd, TurnEnd
from tiller.loop import Batched, Parallel, Sequential, agent_loop
from tiller.loop.options import Execution
from tiller.messages import Message, ToolResultMessage, UserMessage
from tiller.models import Reply, ScriptedModel, call

SKIPPED = "Skipped due to queued user message."


def queue_source() -> tuple[list[Message], Callable[[], list[Message]]]:
    queue: list[Message] = []

    def drain() -> list[Message]:
        items = list(queue)
        queue.clear()
        return items

    return queue, drain


async def steer_after_first_tool(strategy: Any, n_calls: int) -> tuple[list[Any], ScriptedModel]:
    queue, drain = queue_source()

    @tool
    async def step(n: int) -> str:
        """One step of work; the first one makes the user steer."""
        if n == 0:
            queue.append(UserMessage.of("stop, do something else"))
        return f"did {n}"

    model = ScriptedModel(
        [Reply(calls=[call("step", n=i) for i in range(n_calls)]), Reply("changed course")]
    )
    new = await agent_loop(
        "work",
        [],
        config(
            model, [step], get_steering_messages=drain, execution=Execution(tool_calls=strategy)
        ),
    )
    return new, model


async def test_sequential_skips_the_remaining_calls_after_steering() -> None:
    new, model = await steer_after_first_tool(Sequential(), 3)
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == ["did 0", SKIPPED, SKIPPED]
    assert [r.is_error for r in results] == [False, True, True]
    # The steering message goes in after the results, before the next model call.
    second = model.requests[1].messages
    assert second[-1].text == "stop, do something else"
    assert isinstance(second[-2], ToolResultMessage)


async def test_batched_checks_steering_between_batches() -> None:
    new, _ = await steer_after_first_tool(Batched(2), 5)
    results = [m.text for m in new if isinstance(m, ToolResultMessage)]
    assert results == ["did 0", "did 1", SKIPPED, SKIPPED, SKIPPED]


async def test_parallel_runs_every_call_then_takes_the_steering() -> None:
    new, model = await steer_after_first_tool(Parallel(), 3)
    results = [m.text for m in new if isinstance(m, ToolResultMessage)]
    assert results == ["did 0", "did 1", "did 2"]
    assert model.requests[1].messages[-1].text == "stop, do something else"


async def test_skipped_calls_emit_start_and_error_end() -> None:
    queue, drain = queue_source()

    @tool
    async def step(n: int) -> str:
        """Steers on the first call."""
        queue.append(UserMessage.of("halt"))
        return "x"

    rec = Recorder()
    model = ScriptedModel([Reply(calls=[call("step", n=0), call("step", n=1)]), Reply("ok")])
    await agent_loop(
        "go",
        [],
        config(
            model, [step], get_steering_messages=drain, execution=Execution(tool_calls=Sequential())
        ),
        rec,
    )
    ends = rec.of(ToolExecutionEnd)
    assert [e.is_error for e in ends] == [False, True]
    assert ends[1].result.text == SKIPPED


async def test_steering_after_a_text_turn_continues_the_run() -> None:
    queue, drain = queue_source()
    model = ScriptedModel(["first answer", "second answer"])

    def steer_after_first_turn(event: AgentEvent) -> None:
        if isinstance(event, TurnEnd) and event.turn == 1:
            queue.append(UserMessage.of("also this"))

    new = await agent_loop(
        "q", [], config(model, get_steering_messages=drain), steer_after_first_turn
    )
    assert [m.text for m in new] == ["q", "first answer", "also this", "second answer"]


async def test_steering_queued_before_the_run_goes_in_before_the_first_model_call() -> None:
    queue, drain = queue_source()
    model = ScriptedModel(["in kilometres: 5 km"])
    queue.append(UserMessage.of("use metric units"))
    new = await agent_loop("how far?", [], config(model, get_steering_messages=drain))
    (request,) = model.requests
    assert [m.text for m in request.messages] == ["how far?", "use metric units"]
    assert [m.text for m in new] == ["how far?", "use metric units", "in kilometres: 5 km"]


async def test_an_agent_sends_a_steer_queued_before_run_in_its_first_request() -> None:
    model = ScriptedModel(["5 km"])
    agent = Agent(model)
    agent.steer("use metric units")
    await agent.run("how far?")
    assert [m.text for m in model.requests[0].messages] == ["how far?", "use metric units"]


async def test_follow_ups_are_taken_only_when_the_run_would_stop() -> None:
    follow, drain_follow = queue_source()
    follow.append(UserMessage.of("and then?"))

    @tool
    async def noop() -> str:
        """Does nothing."""
        return "ok"

    model = ScriptedModel([Reply(calls=[call("noop")]), "answer one", "answer two"])
    new = await agent_loop("q", [], config(model, [noop], get_follow_up_messages=drain_follow))
    texts = [m.text for m in new]
    # Not injected after the tool turn, only after the final answer.
    assert texts == ["q", "", "ok", "answer one", "and then?", "answer two"]
    model.assert_complete()
