"""Tool execution: strategies, call order, errors as results, hooks, updates."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from tests.helpers import Recorder, config
from tiller import Agent, ToolContext, ToolResult, tool
from tiller.errors import ToolError
from tiller.events import (
    MessageEnd,
    Progress,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from tiller.loop import Batched, Deny, Parallel, ReplaceArguments, Sequential, agent_loop
from tiller.loop.options import Execution, Governance
from tiller.messages import ImageContent, ToolResultMessage
from tiller.models import Reply, ScriptedModel, call


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def results_of(messages: list[Any]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


async def run_calls(calls: list[Any], tools: list[Any], **kw: Any) -> tuple[list[Any], Recorder]:
    model = ScriptedModel([Reply(calls=calls), Reply("done")])
    rec = Recorder()
    new = await agent_loop("go", [], config(model, tools, **kw), rec)
    model.assert_complete()
    return new, rec


async def test_parallel_runs_all_calls_concurrently() -> None:
    started = 0
    all_started = asyncio.Event()

    @tool
    async def wait_for_all(n: int) -> str:
        """Waits until all three calls have started."""
        nonlocal started
        started += 1
        if started == 3:
            all_started.set()
        await asyncio.wait_for(all_started.wait(), timeout=5)
        return f"ok {n}"

    calls = [call("wait_for_all", n=i) for i in range(3)]
    new, _ = await run_calls(calls, [wait_for_all], execution=Execution(tool_calls=Parallel()))
    assert [r.text for r in results_of(new)] == ["ok 0", "ok 1", "ok 2"]


async def test_sync_tools_run_in_worker_threads_concurrently() -> None:
    barrier = threading.Barrier(3, timeout=5)
    loop_thread = threading.get_ident()
    threads: list[int] = []

    @tool
    def blocking(n: int) -> str:
        """Blocks until all three are running."""
        threads.append(threading.get_ident())
        barrier.wait()
        return str(n)

    new, _ = await run_calls([call("blocking", n=i) for i in range(3)], [blocking])
    assert [r.text for r in results_of(new)] == ["0", "1", "2"]
    assert loop_thread not in threads


async def test_sequential_runs_one_at_a_time() -> None:
    running = 0
    overlap = False

    @tool
    async def slow(n: int) -> str:
        """Yields to the loop while running."""
        nonlocal running, overlap
        running += 1
        overlap = overlap or running > 1
        await asyncio.sleep(0.001)
        running -= 1
        return str(n)

    new, _ = await run_calls(
        [call("slow", n=i) for i in range(4)], [slow], execution=Execution(tool_calls=Sequential())
    )
    assert not overlap
    assert [r.text for r in results_of(new)] == ["0", "1", "2", "3"]


async def test_batched_runs_groups_concurrently_and_groups_in_order() -> None:
    events: list[str] = []
    gate: dict[int, asyncio.Event] = {}

    @tool
    async def member(n: int) -> str:
        """Records start and end; partners in a batch wait for each other."""
        events.append(f"start {n}")
        group = n // 2
        if n % 2 == 0:
            gate[group] = asyncio.Event()
            await asyncio.wait_for(gate[group].wait(), timeout=5)
        else:
            gate[group].set()
        events.append(f"end {n}")
        return str(n)

    new, _ = await run_calls(
        [call("member", n=i) for i in range(4)],
        [member],
        execution=Execution(tool_calls=Batched(2)),
    )
    assert [r.text for r in results_of(new)] == ["0", "1", "2", "3"]
    # Both members of a batch start before either ends; batch 2 starts after batch 1 ends.
    assert events.index("start 1") < events.index("end 0")
    assert events.index("start 2") > max(events.index("end 0"), events.index("end 1"))


def test_batched_rejects_a_size_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Batched(0)


@settings(max_examples=30, deadline=None)
@given(
    delays=st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=6),
    strategy=st.sampled_from([Sequential(), Parallel(), Batched(1), Batched(2), Batched(4)]),
)
def test_results_come_back_in_call_order(delays: list[int], strategy: Any) -> None:
    @tool
    async def sleepy(n: int, ticks: int) -> str:
        """Finishes after `ticks` loop iterations."""
        for _ in range(ticks):
            await asyncio.sleep(0)
        return str(n)

    calls = [call("sleepy", n=i, ticks=d) for i, d in enumerate(delays)]
    new, _ = asyncio.run(run_calls(calls, [sleepy], execution=Execution(tool_calls=strategy)))
    results = results_of(new)
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    assert [r.text for r in results] == [str(i) for i in range(len(delays))]


async def test_unknown_tool_becomes_an_error_result_and_the_loop_goes_on() -> None:
    new, _rec = await run_calls([call("nope", x=1)], [add])
    (result,) = results_of(new)
    assert result.is_error
    assert result.text == "Tool nope not found"
    assert new[-1].text == "done"


async def test_invalid_arguments_tell_the_model_what_is_wrong() -> None:
    new, _ = await run_calls([call("add", a="seven", b=1)], [add])
    (result,) = results_of(new)
    assert result.is_error
    assert "Invalid arguments for tool 'add'" in result.text
    assert "a:" in result.text
    assert "integer" in result.text


async def test_malformed_argument_json_becomes_a_correctable_error() -> None:
    new, _ = await run_calls([call("add", '{"a": 1, "b": ')], [add])
    (result,) = results_of(new)
    assert result.is_error
    assert "not valid JSON" in result.text
    assert '{"a": 1, "b": ' in result.text


async def test_a_raising_tool_becomes_an_error_result() -> None:
    @tool
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    @tool
    def refuse() -> str:
        """Fails on purpose, with a message for the model."""
        raise ToolError("not allowed here")

    new, _ = await run_calls([call("explode"), call("refuse")], [explode, refuse])
    first, second = results_of(new)
    assert first.is_error
    assert first.text == "RuntimeError: disk on fire"
    assert second.is_error
    assert second.text == "not allowed here"


async def test_a_hanging_tool_times_out_and_its_token_is_cancelled() -> None:
    stopped = threading.Event()

    @tool(timeout_s=0.05)
    def hang(ctx: ToolContext) -> str:
        """Works until cancelled."""
        deadline = time.monotonic() + 5
        while not ctx.cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        if ctx.cancel.cancelled:
            stopped.set()
        return "stopped"

    new, _ = await run_calls([call("hang")], [hang])
    (result,) = results_of(new)
    assert result.is_error
    assert result.text == "Tool 'hang' timed out after 0.05s and was cancelled."
    assert await asyncio.to_thread(stopped.wait, 5)


async def test_tools_may_return_images_and_json_data() -> None:
    @tool
    def picture() -> ImageContent:
        """An image."""
        return ImageContent("aGVsbG8=", "image/png")

    @tool
    def data() -> dict[str, Any]:
        """Some data."""
        return {"b": [1, 2], "a": None}

    new, _ = await run_calls([call("picture"), call("data")], [picture, data])
    img, obj = results_of(new)
    assert img.content == [ImageContent("aGVsbG8=", "image/png")]
    assert obj.text == '{"b":[1,2],"a":null}'


async def test_before_hook_can_deny_with_a_reason() -> None:
    def before(name: str, call_id: str, args: dict[str, Any]) -> Any:
        return Deny("additions are paused") if name == "add" else True

    new, rec = await run_calls(
        [call("add", a=1, b=2)], [add], governance=Governance(before_tool_execution=before)
    )
    (result,) = results_of(new)
    assert result.is_error
    assert result.text == "Tool call skipped by before_tool_execution hook: additions are paused"
    assert not rec.of(ToolExecutionStart)  # a skipped call never starts
    assert rec.of(ToolExecutionEnd)[0].is_error


async def test_before_hook_returning_false_skips_with_the_fixed_text() -> None:
    new, _ = await run_calls(
        [call("add", a=1, b=2)],
        [add],
        governance=Governance(before_tool_execution=lambda *a: False),
    )
    assert results_of(new)[0].text == "Tool call skipped by before_tool_execution hook"


async def test_before_hook_can_replace_arguments_and_may_be_async() -> None:
    async def before(name: str, call_id: str, args: dict[str, Any]) -> Any:
        return ReplaceArguments({"a": args["a"] * 10, "b": args["b"]})

    new, rec = await run_calls(
        [call("add", a=1, b=2)], [add], governance=Governance(before_tool_execution=before)
    )
    assert results_of(new)[0].text == "12"
    assert rec.of(ToolExecutionStart)[0].arguments == {"a": 10, "b": 2}


async def test_after_hook_sees_each_outcome() -> None:
    seen: list[tuple[str, bool]] = []
    await run_calls(
        [call("add", a=1, b=2), call("missing")],
        [add],
        governance=Governance(
            after_tool_execution=lambda name, call_id, is_error: seen.append((name, is_error))
        ),
    )
    assert sorted(seen) == [("add", False), ("missing", True)]


async def test_updates_and_progress_become_events_and_update_hooks_can_suppress() -> None:
    @tool
    def work(ctx: ToolContext) -> str:
        """Reports as it goes, from a worker thread."""
        ctx.on_progress("starting")
        ctx.on_update("partial 1")
        ctx.on_update(ToolResult.of("secret partial"))
        ctx.on_update("partial 2")
        return "finished"

    after: list[str] = []
    _new, rec = await run_calls(
        [call("work")],
        [work],
        governance=Governance(
            before_tool_execution_update=lambda name, cid, text: "secret" not in text,
            after_tool_execution_update=lambda name, cid, text: after.append(text),
        ),
    )
    updates = [e.partial_result.text for e in rec.of(ToolExecutionUpdate)]
    assert updates == ["partial 1", "partial 2"]
    assert after == ["partial 1", "partial 2"]
    assert [e.text for e in rec.of(Progress)] == ["starting"]
    # Updates arrive between the start and the end of the call.
    types = rec.types
    assert types.index("tool_execution_start") < types.index("tool_execution_update")
    assert types.index("tool_execution_update") < types.index("tool_execution_end")


async def test_each_result_is_announced_as_a_message() -> None:
    new, rec = await run_calls([call("add", a=1, b=2)], [add])
    ends = [e.message for e in rec.of(MessageEnd) if isinstance(e.message, ToolResultMessage)]
    assert ends == results_of(new)


async def test_sync_tools_do_not_block_the_event_loop() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    @tool
    def block_briefly() -> str:
        """Blocks its thread until the loop has ticked."""
        deadline = time.monotonic() + 5
        while ticks < 5 and time.monotonic() < deadline:
            time.sleep(0.001)
        return "ok"

    task = asyncio.create_task(ticker())
    try:
        agent = Agent(
            ScriptedModel([Reply(calls=[call("block_briefly")]), Reply("done")]),
            tools=[block_briefly],
        )
        await agent.run("go")
    finally:
        task.cancel()
    assert ticks >= 5


async def test_every_error_result_says_is_error_in_its_result_as_in_its_event() -> None:
    from tiller.errors import ToolError
    from tiller.events import ToolExecutionEnd
    from tiller.messages import AssistantMessage, ToolCall

    @tool
    async def fails() -> str:
        """Always fails."""
        raise ToolError("nope")

    @tool
    async def crashes() -> str:
        """Always crashes."""
        raise RuntimeError("bug")

    @tool
    async def needs(n: int) -> int:
        """Needs a number."""
        return n

    bad_json = AssistantMessage(
        [ToolCall("c9", "needs", {}, invalid_arguments="{oops")], "tool_use"
    )
    model = ScriptedModel(
        [
            Reply(calls=[call("fails"), call("crashes"), call("missing"), call("needs", n="x")]),
            bad_json,
            "done",
        ]
    )
    rec = Recorder()
    await agent_loop("go", [], config(model, [fails, crashes, needs]), rec)
    ends = rec.of(ToolExecutionEnd)
    assert len(ends) == 5
    assert all(e.is_error and e.result.is_error for e in ends)
