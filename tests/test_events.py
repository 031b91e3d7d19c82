"""The history a run adds can be rebuilt from its events, failed attempts left out."""

from __future__ import annotations

from tests.helpers import Recorder, config
from tiller import CancelToken, tool
from tiller.codec import event_from_data, to_data
from tiller.errors import ContextOverflowError, NetworkError, OverloadedError
from tiller.events import AgentEnd, MessageEnd, rebuild_messages
from tiller.loop import Limits, agent_loop
from tiller.loop.options import ContextOptions, Execution
from tiller.models import Fail, Reply, RetryPolicy, ScriptedModel, call

NO_WAIT = RetryPolicy(max_retries=5, base_delay_s=0.0, max_delay_s=0.0)


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def run_and_check(model: ScriptedModel, limits: Limits | None = None) -> Recorder:
    rec = Recorder()
    execution = Execution(limits=limits or Limits(), retry=NO_WAIT)
    new = await agent_loop("go", [], config(model, [add], execution=execution), rec)
    (end,) = rec.of(AgentEnd)
    assert end.messages == new
    assert rebuild_messages(rec.events) == new
    # and through the wire format, as a consumer reading a log would
    wire = [event_from_data(to_data(e)) for e in rec.events]
    assert to_data(rebuild_messages(wire)) == to_data(new)
    return rec


async def test_retried_attempts_are_marked_and_left_out() -> None:
    model = ScriptedModel(
        [
            Reply("partial answer that", fail=NetworkError("stream cut")),
            Reply("again partial", fail=OverloadedError("busy")),
            Reply(calls=[call("add", a=1, b=2)]),
            Reply("3"),
        ]
    )
    rec = await run_and_check(model)
    failed = [e for e in rec.of(MessageEnd) if e.attempt_failed]
    assert [e.message.text for e in failed] == ["partial answer that", "again partial"]


async def test_a_final_failure_is_not_an_attempt_failed_and_enters_the_history() -> None:
    model = ScriptedModel([Fail(NetworkError("down")) for _ in range(6)])
    rec = await run_and_check(model)
    ends = rec.of(MessageEnd)
    assert [e.attempt_failed for e in ends] == [False, True, True, True, True, True, False]


async def test_an_overflow_retried_after_compaction_is_a_failed_attempt() -> None:
    from tiller.context import ContextBudget

    model = ScriptedModel([Fail(ContextOverflowError("prompt is too long")), Reply("fits now")])
    history_filler = "word " * 2000
    rec = Recorder()
    from tiller.messages import AssistantMessage, Message, TextContent, UserMessage

    history: list[Message] = [
        UserMessage.of(history_filler),
        AssistantMessage([TextContent(history_filler)], "stop"),
    ] * 3
    new = await agent_loop(
        "go",
        history,
        config(
            model,
            [add],
            context=ContextOptions(budget=ContextBudget(max_context_tokens=100_000)),
            execution=Execution(retry=NO_WAIT),
        ),
        rec,
    )
    assert rebuild_messages(rec.events) == new
    assert [e.attempt_failed for e in rec.of(MessageEnd)][-2:] == [True, False]
    assert new[-1].text == "fits now"


async def test_rebuild_ignores_a_sub_loop_and_covers_limits_and_aborts() -> None:
    await run_and_check(
        ScriptedModel([Reply(calls=[call("add", a=i, b=1)]) for i in range(5)]),
        limits=Limits(max_turns=2),
    )
    cancel = CancelToken()
    cancel.cancel()
    rec = Recorder()
    new = await agent_loop("go", [], config(ScriptedModel(["x"])), rec, cancel)
    assert rebuild_messages(rec.events) == new
