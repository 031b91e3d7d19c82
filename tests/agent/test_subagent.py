"""`SubAgentTool`: a child agent run as a tool call, its events nested in the parent's."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tests.helpers import Recorder, config
from tiller import Agent, CancelToken, tool
from tiller.agent.subagent import NO_ANSWER_TEXT, SubAgentTool
from tiller.errors import AuthError
from tiller.events import (
    AgentEnd,
    AgentStart,
    LoopDetected,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from tiller.loop import Limits, agent_loop
from tiller.loop.options import Execution
from tiller.loop.tool_execution import ABORTED_TEXT
from tiller.messages import AssistantMessage, ToolResultMessage, UserMessage
from tiller.models import Fail, FunctionModel, ModelRequest, Reply, ScriptedModel, call
from tiller.models.scripted import Step


@tool
def lookup(word: str) -> str:
    """Look a word up."""
    return f"{word}: a small rodent"


def _results(messages: Sequence[object]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


async def test_child_answer_is_the_result_and_its_events_are_nested() -> None:
    child_model = ScriptedModel(
        [Reply("Looking.", calls=[call("lookup", word="vole")]), "A vole is a small rodent."]
    )
    helper = SubAgentTool(
        "ask_helper",
        "Ask a helper.",
        child_model,
        tools=[lookup],
        system_prompt="You are the helper.",
    )
    parent_model = ScriptedModel(
        [Reply(calls=[call("ask_helper", task="What is a vole?")]), "It is a rodent."]
    )
    rec = Recorder()
    cfg = config(parent_model, [helper], loop_id="parent1")
    new = await agent_loop("Tell me about voles", [], cfg, rec)

    # The child got the task as its prompt, with its own system prompt and tools.
    first = child_model.requests[0]
    assert first.system_prompt == "You are the helper."
    assert [t.name for t in first.tools] == ["lookup"]
    prompt = first.messages[0]
    assert isinstance(prompt, UserMessage)
    assert prompt.text == "What is a vole?"
    child_model.assert_complete()

    (result,) = _results(new)
    assert result.text == "A vole is a small rodent."
    assert not result.is_error
    # The parent's next request sees only its own tool result, not the child's messages.
    assert [m.role for m in parent_model.requests[1].messages] == [
        "user",
        "assistant",
        "tool_result",
    ]

    ends = [e for e in rec.of(ToolExecutionEnd) if e.tool_name == "ask_helper"]
    (end,) = ends
    child_id = end.child_loop_id
    assert child_id is not None
    assert end.loop_id == "parent1"
    assert end.parent_loop_id is None

    child_events = [e for e in rec.events if e.loop_id == child_id]
    assert all(e.parent_loop_id == "parent1" for e in child_events)
    types = [e.type for e in child_events]
    assert types[0] == "agent_start"
    assert types[-1] == "agent_end"
    assert types.count("turn_start") == types.count("turn_end") == 2
    # The child's work streamed into the parent's stream between the parent's
    # tool_execution_start and tool_execution_end for that call.
    start_at = next(
        i
        for i, e in enumerate(rec.events)
        if isinstance(e, ToolExecutionStart) and e.tool_name == "ask_helper"
    )
    end_at = rec.events.index(end)
    assert all(start_at < rec.events.index(e) < end_at for e in child_events)
    child_tool_end = [
        e for e in child_events if isinstance(e, ToolExecutionEnd) and e.tool_name == "lookup"
    ]
    assert child_tool_end[0].result.text == "vole: a small rodent"
    # Every event is either the parent's or the child's.
    assert {e.loop_id for e in rec.events} == {"parent1", child_id}
    assert isinstance(result.details, dict)
    assert result.details["turns"] == 2
    assert result.details["loop_id"] == child_id


async def test_agent_history_keeps_only_its_own_messages() -> None:
    helper = SubAgentTool("helper", "Helps.", ScriptedModel(["child says hi"]))
    agent = Agent(
        ScriptedModel([Reply(calls=[call("helper", task="say hi")]), "done"]), tools=[helper]
    )
    seen: list[object] = []
    agent.subscribe(seen.append)
    result = await agent.run("go")

    assert result.text == "done"
    assert [m.role for m in agent.messages] == ["user", "assistant", "tool_result", "assistant"]
    assert agent.last_stats is not None
    assert agent.last_stats.turns == 2
    # Subscribers saw both agent_end events: the child's and the agent's own.
    ends = [e for e in seen if isinstance(e, AgentEnd)]
    assert len(ends) == 2
    assert ends[0].parent_loop_id == ends[1].loop_id


async def test_child_that_hits_max_turns_returns_partial_text_and_marker_as_error() -> None:
    child_model = ScriptedModel(
        [
            Reply("First I look up voles.", calls=[call("lookup", word="vole")]),
            Reply("Now shrews.", calls=[call("lookup", word="shrew")]),
        ]
    )
    helper = SubAgentTool(
        "helper",
        "Helps.",
        child_model,
        tools=[lookup],
        execution=Execution(limits=Limits(max_turns=2)),
    )
    parent = ScriptedModel([Reply(calls=[call("helper", task="compare")]), "ok"])
    rec = Recorder()
    new = await agent_loop("go", [], config(parent, [helper]), rec)

    (result,) = _results(new)
    assert result.is_error
    assert result.text.startswith("First I look up voles.\n\nNow shrews.\n\n")
    assert result.text.endswith("[Run stopped: max_turns limit reached (2 of 2 turns used)]")
    end = next(e for e in rec.of(ToolExecutionEnd) if e.tool_name == "helper")
    assert end.is_error
    assert end.child_loop_id is not None
    # The parent goes on after the error result.
    last = new[-1]
    assert isinstance(last, AssistantMessage)
    assert last.text == "ok"
    child_end = next(e for e in rec.of(AgentEnd) if e.loop_id == end.child_loop_id)
    assert child_end.stats.stopped_by == "max_turns"


async def test_a_child_that_loops_is_stopped_and_reported() -> None:
    calls = 0

    def stuck(request: ModelRequest) -> Step:
        nonlocal calls
        calls += 1
        return Reply("Checking again.", calls=[call("lookup", word="vole")])

    helper = SubAgentTool("helper", "Helps.", FunctionModel(stuck), tools=[lookup])
    parent = ScriptedModel([Reply(calls=[call("helper", task="define vole")]), "gave up"])
    rec = Recorder()
    new = await agent_loop("go", [], config(parent, [helper]), rec)

    (result,) = _results(new)
    assert result.is_error
    assert "[Run stopped: tool 'lookup' was called 5 times with the same arguments" in result.text
    assert result.text.startswith("Checking again.")
    assert calls == 5  # stopped by the default repetition policy, not by running out
    (detected,) = rec.of(LoopDetected)
    end = next(e for e in rec.of(ToolExecutionEnd) if e.tool_name == "helper")
    assert detected.loop_id == end.child_loop_id
    assert detected.parent_loop_id == end.loop_id
    assert isinstance(new[-1], AssistantMessage)
    assert new[-1].text == "gave up"


async def test_child_model_failure_is_an_error_result() -> None:
    helper = SubAgentTool(
        "helper", "Helps.", ScriptedModel([Fail(AuthError("bad key", provider="x"))])
    )
    parent = ScriptedModel([Reply(calls=[call("helper", task="t")]), "sorry"])
    new = await agent_loop("go", [], config(parent, [helper]))
    (result,) = _results(new)
    assert result.is_error
    assert result.text == "[Sub-agent stopped: auth: bad key]"


async def test_child_without_text_says_so() -> None:
    empty = AssistantMessage([], "stop")
    helper = SubAgentTool("helper", "Helps.", ScriptedModel([empty]))
    parent = ScriptedModel([Reply(calls=[call("helper", task="t")]), "ok"])
    new = await agent_loop("go", [], config(parent, [helper]))
    (result,) = _results(new)
    assert result.text == NO_ANSWER_TEXT
    assert not result.is_error


async def test_missing_or_empty_task_is_an_error_the_model_can_fix() -> None:
    child = ScriptedModel([])
    helper = SubAgentTool("helper", "Helps.", child)
    parent = ScriptedModel([Reply(calls=[call("helper", {}), call("helper", task="  ")]), "ok"])
    new = await agent_loop("go", [], config(parent, [helper]))
    results = _results(new)
    assert all(r.is_error for r in results)
    assert all("needs a non-empty string argument 'task'" in r.text for r in results)
    assert child.requests == []


async def test_cancelling_the_parent_cancels_the_childs_model_call() -> None:
    child_called = asyncio.Event()
    child_cancelled = asyncio.Event()

    async def never_answers(request: ModelRequest) -> Step:
        child_called.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            child_cancelled.set()
            raise
        return "unreachable"

    helper = SubAgentTool("helper", "Helps.", FunctionModel(never_answers))
    parent = ScriptedModel([Reply(calls=[call("helper", task="t")])])
    rec = Recorder()
    cancel = CancelToken()
    tasks_before = asyncio.all_tasks()
    run = asyncio.create_task(agent_loop("go", [], config(parent, [helper]), rec, cancel))
    await asyncio.wait_for(child_called.wait(), 5)
    cancel.cancel()
    new = await asyncio.wait_for(run, 5)

    assert child_cancelled.is_set()
    (result,) = _results(new)
    assert result.is_error
    assert result.text == ABORTED_TEXT
    parent_id = rec.events[0].loop_id
    ends = {e.loop_id: e.stats for e in rec.of(AgentEnd)}
    assert len(ends) == 2
    assert all(stats.stop_reason == "aborted" for stats in ends.values())
    # The child ended cleanly (its turn closed, its agent_end sent) before the parent did.
    child_id = next(i for i in ends if i != parent_id)
    child_types = [e.type for e in rec.events if e.loop_id == child_id]
    assert child_types.count("turn_start") == child_types.count("turn_end") == 1
    assert rec.events[-1].loop_id == parent_id
    assert asyncio.all_tasks() == tasks_before


async def test_a_tool_timeout_cancels_the_child() -> None:
    child_cancelled = asyncio.Event()

    async def slow(request: ModelRequest) -> Step:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            child_cancelled.set()
            raise
        return "unreachable"

    helper = SubAgentTool("helper", "Helps.", FunctionModel(slow), timeout_s=0.05)
    parent = ScriptedModel([Reply(calls=[call("helper", task="t")]), "moved on"])
    rec = Recorder()
    new = await agent_loop("go", [], config(parent, [helper]), rec)
    assert child_cancelled.is_set()
    (result,) = _results(new)
    assert result.is_error
    assert "timed out" in result.text
    child_end = [e for e in rec.of(AgentEnd) if e.parent_loop_id is not None]
    assert child_end[0].stats.stop_reason == "aborted"


async def test_grandchild_events_name_their_own_parent() -> None:
    grandchild = SubAgentTool("inner", "Inner.", ScriptedModel(["deep answer"]))
    child = SubAgentTool(
        "outer",
        "Outer.",
        ScriptedModel([Reply(calls=[call("inner", task="dig")]), "relayed"]),
        tools=[grandchild],
    )
    parent = ScriptedModel([Reply(calls=[call("outer", task="ask")]), "final"])
    rec = Recorder()
    await agent_loop("go", [], config(parent, [child], loop_id="p"), rec)

    starts = rec.of(AgentStart)
    assert len(starts) == 3
    lineage = {e.loop_id: e.parent_loop_id for e in starts}
    outer_end = next(e for e in rec.of(ToolExecutionEnd) if e.tool_name == "outer")
    inner_end = next(e for e in rec.of(ToolExecutionEnd) if e.tool_name == "inner")
    assert outer_end.result.text == "relayed"
    assert inner_end.result.text == "deep answer"
    assert lineage == {
        "p": None,
        outer_end.child_loop_id: "p",
        inner_end.child_loop_id: inner_end.loop_id,
    }
    assert inner_end.loop_id == outer_end.child_loop_id
    # Every turn everywhere is closed.
    assert len(rec.of(TurnStart)) == len(rec.of(TurnEnd)) == 5  # 2 + 2 + 1
    assert len(rec.of(MessageUpdate)) > 0


async def test_a_child_out_of_wall_time_stops_alone_and_reports_it() -> None:
    async def slow(request: ModelRequest) -> Step:
        await asyncio.sleep(60)
        return "unreachable"

    helper = SubAgentTool(
        "helper",
        "Helps.",
        FunctionModel(slow),
        execution=Execution(limits=Limits(max_wall_time_s=0.1)),
    )
    parent = ScriptedModel([Reply(calls=[call("helper", task="t")]), "carried on"])
    rec = Recorder()
    new = await asyncio.wait_for(agent_loop("go", [], config(parent, [helper]), rec), 30)

    (result,) = _results(new)
    assert result.is_error
    assert result.text.startswith("[Run stopped: max_wall_time_s limit reached")
    # Only the child was stopped: the parent went on to answer.
    last = new[-1]
    assert isinstance(last, AssistantMessage)
    assert last.text == "carried on"
    stops = {e.loop_id: e.stats.stopped_by for e in rec.of(AgentEnd)}
    assert set(stops.values()) == {"max_wall_time_s", None}
