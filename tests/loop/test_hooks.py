"""Hooks that raise never escape the run and never leave a call without its result."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from tests.helpers import Recorder, config
from tiller import tool
from tiller.agent import Agent
from tiller.events import AgentEnd, AgentEvent, InputRejected, ToolExecutionEnd
from tiller.loop import agent_loop
from tiller.loop.filters import Pass
from tiller.loop.options import Governance
from tiller.messages import AssistantMessage, Message, ToolResultMessage
from tiller.models import Reply, ScriptedModel, call
from tiller.tools.base import ToolContext

ran: list[str] = []


@tool
async def write(path: str) -> str:
    """Pretend to write a file."""
    ran.append(path)
    return f"wrote {path}"


@tool
async def chatty(ctx: ToolContext) -> str:
    """Report progress twice."""
    ctx.on_update("half way")
    ctx.on_update("done")
    return "finished"


def assert_every_call_answered_once(messages: list[Message]) -> None:
    calls = [c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    answered = [m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)]
    assert sorted(calls) == sorted(answered)


def two_writes() -> ScriptedModel:
    return ScriptedModel(
        [Reply(calls=[call("write", path="a"), call("write", path="b")]), Reply("done")]
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


async def test_a_raising_before_hook_denies_that_call_and_the_run_goes_on() -> None:
    def guard(name: str, call_id: str, arguments: dict[str, Any]) -> bool:
        if arguments["path"] == "a":
            raise RuntimeError("policy store unreachable")
        return True

    rec = Recorder()
    cfg = config(two_writes(), [write], governance=Governance(before_tool_execution=guard))
    new = await agent_loop("go", [], cfg, rec)
    assert ran == ["b"]
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert results[0].is_error
    assert "RuntimeError: policy store unreachable" in results[0].text
    assert not results[1].is_error
    assert new[-1].text == "done"
    assert_every_call_answered_once(new)


async def test_an_async_raising_before_hook_denies_the_call() -> None:
    async def guard(name: str, call_id: str, arguments: dict[str, Any]) -> bool:
        raise ValueError("bad")

    new = await agent_loop(
        "go", [], config(two_writes(), [write], governance=Governance(before_tool_execution=guard))
    )
    assert ran == []
    assert all(m.is_error for m in new if isinstance(m, ToolResultMessage))
    assert_every_call_answered_once(new)


async def test_a_raising_after_hook_makes_the_result_an_error_that_says_the_tool_ran() -> None:
    def audit(name: str, call_id: str, is_error: bool) -> None:
        raise OSError("audit log full")

    new = await agent_loop(
        "go", [], config(two_writes(), [write], governance=Governance(after_tool_execution=audit))
    )
    assert ran == ["a", "b"]
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert all(r.is_error for r in results)
    assert "wrote a" in results[0].text
    assert "the tool ran" in results[0].text
    assert "OSError: audit log full" in results[0].text
    assert_every_call_answered_once(new)


@pytest.mark.parametrize("which", ["before", "after"])
async def test_a_raising_update_hook_makes_the_call_an_error_and_the_run_goes_on(
    which: str,
) -> None:
    def hook(name: str, call_id: str, text: str) -> NoReturn:
        raise KeyError("update hook broke")

    model = ScriptedModel([Reply(calls=[call("chatty")]), Reply("ok")])
    governance = (
        Governance(before_tool_execution_update=hook)
        if which == "before"
        else Governance(after_tool_execution_update=hook)
    )
    new = await agent_loop("go", [], config(model, [chatty], governance=governance))
    (result,) = [m for m in new if isinstance(m, ToolResultMessage)]
    assert result.is_error
    assert "finished" in result.text
    assert "update hook broke" in result.text
    assert new[-1].text == "ok"


async def test_an_agent_survives_a_raising_hook_and_its_history_stays_valid() -> None:
    def guard(name: str, call_id: str, arguments: dict[str, Any]) -> bool:
        raise RuntimeError("boom")

    agent = Agent(two_writes(), tools=[write], governance=Governance(before_tool_execution=guard))
    result = await agent.run("go")
    assert result.stop_reason == "stop"
    assert_every_call_answered_once(agent.messages)


async def test_a_raising_input_filter_rejects_the_input_and_writes_nothing() -> None:
    def broken(text: str) -> Pass:
        raise RuntimeError("classifier offline")

    model = ScriptedModel(["never"])
    agent = Agent(model, governance=Governance(input_filters=[broken]))
    result = await agent.run("hello")
    assert model.requests == []
    assert agent.messages == []
    assert result.stopped_by == "input_rejected"
    assert "classifier offline" in (result.error or "")


async def test_a_raising_input_filter_emits_input_rejected() -> None:
    def broken(text: str) -> Pass:
        raise RuntimeError("classifier offline")

    rec = Recorder()
    await agent_loop(
        "hi", [], config(ScriptedModel(["x"]), governance=Governance(input_filters=[broken])), rec
    )
    (rejected,) = rec.of(InputRejected)
    assert "broken" in rejected.reason


async def test_a_raising_event_sink_never_half_writes_the_history() -> None:
    seen: list[str] = []

    def sink(event: AgentEvent) -> None:
        seen.append(event.type)
        if isinstance(event, ToolExecutionEnd):
            raise RuntimeError("listener bug")

    new = await agent_loop("go", [], config(two_writes(), [write]), sink)
    assert ran == ["a", "b"]
    assert_every_call_answered_once(new)
    assert seen[-1] == "agent_end"


async def test_a_raising_agent_listener_leaves_the_history_valid() -> None:
    agent = Agent(two_writes(), tools=[write])

    def listener(event: AgentEvent) -> None:
        if not isinstance(event, AgentEnd):
            raise RuntimeError("listener bug")

    agent.subscribe(listener)
    result = await agent.run("go")
    assert result.text == "done"
    assert_every_call_answered_once(agent.messages)
