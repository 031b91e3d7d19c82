"""Repeated identical tool calls get a nudge, then stop the run."""

from __future__ import annotations

from tests.helpers import Recorder, config
from tiller import tool
from tiller.events import AgentEnd, LoopDetected
from tiller.loop import RepetitionPolicy, agent_loop
from tiller.loop.options import Execution
from tiller.loop.repetition import RepetitionGuard
from tiller.messages import ExtensionMessage, ToolResultMessage
from tiller.models import Reply, ScriptedModel, call


@tool
async def lookup(city: str, units: str = "metric") -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def test_key_order_does_not_matter() -> None:
    guard = RepetitionGuard(RepetitionPolicy(nudge_after=2, stop_after=9))
    assert guard.record("f", {"a": 1, "b": [1, 2]}) is None
    assert guard.record("f", {"b": [1, 2], "a": 1}) is not None


def test_different_arguments_or_types_are_different_calls() -> None:
    guard = RepetitionGuard(RepetitionPolicy(nudge_after=2, stop_after=9))
    assert guard.record("f", {"a": 1}) is None
    assert guard.record("f", {"a": "1"}) is None
    assert guard.record("g", {"a": 1}) is None


async def test_nudge_then_stop() -> None:
    # Same call, key order shuffled each time.
    steps = [
        Reply(calls=[call("lookup", {"city": "Oslo", "units": "si"})]),
        Reply(calls=[call("lookup", {"units": "si", "city": "Oslo"})]),
        Reply(calls=[call("lookup", {"city": "Oslo", "units": "si"})]),
        Reply(calls=[call("lookup", {"units": "si", "city": "Oslo"})]),
        Reply("never reached"),
    ]
    model = ScriptedModel(steps)
    rec = Recorder()
    new = await agent_loop(
        "weather?",
        [],
        config(
            model,
            [lookup],
            execution=Execution(repetition=RepetitionPolicy(nudge_after=2, stop_after=4)),
        ),
        rec,
    )
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [len(r.content) for r in results] == [1, 2, 2, 2]
    assert (
        results[1]
        .content[1]
        .text.startswith(  # type: ignore[union-attr]
            "[Note: this is call 2 in a row of 'lookup' with these same arguments"
        )
    )
    (detected,) = rec.of(LoopDetected)
    assert (detected.tool_name, detected.repeats) == ("lookup", 4)
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.text == (
        "[Run stopped: tool 'lookup' was called 4 times with the same arguments; "
        "the run looked stuck in a loop]"
    )
    assert rec.of(AgentEnd)[0].stats.stopped_by == "loop_detected"
    assert model.remaining == 1


async def test_disabled_with_none() -> None:
    steps = [Reply(calls=[call("lookup", city="Oslo")]) for _ in range(6)] + [Reply("ok")]
    model = ScriptedModel(steps)
    new = await agent_loop("w", [], config(model, [lookup], execution=Execution(repetition=None)))
    assert new[-1].text == "ok"


def test_only_consecutive_identical_calls_count() -> None:
    guard = RepetitionGuard(RepetitionPolicy(nudge_after=3, stop_after=5))
    for _ in range(10):
        assert guard.record("edit", {"path": "a.py"}) is None
        assert guard.record("run_tests", {}) is None
    assert guard.tripped is None


def test_a_different_call_resets_the_count() -> None:
    guard = RepetitionGuard(RepetitionPolicy(nudge_after=2, stop_after=3))
    guard.record("f", {})
    assert guard.record("f", {}) is not None
    guard.record("g", {})
    assert guard.record("f", {}) is None
    assert guard.tripped is None


async def test_an_edit_test_cycle_is_normal_work_and_runs_to_the_end() -> None:
    @tool
    async def edit(path: str) -> str:
        """Edit a file."""
        return "edited"

    @tool
    async def run_tests() -> str:
        """Run the tests."""
        return "1 failed"

    steps: list[Reply | str] = []
    for _ in range(6):
        steps += [Reply(calls=[call("edit", path="a.py")]), Reply(calls=[call("run_tests")])]
    steps.append("all green")
    rec = Recorder()
    new = await agent_loop("fix it", [], config(ScriptedModel(steps), [edit, run_tests]), rec)
    assert not rec.of(LoopDetected)
    assert new[-1].text == "all green"
    assert all(len(m.content) == 1 for m in new if isinstance(m, ToolResultMessage))


async def test_identical_calls_in_one_message_count_in_call_order() -> None:
    model = ScriptedModel(
        [Reply(calls=[call("lookup", city="Oslo") for _ in range(3)]), Reply("done")]
    )
    new = await agent_loop(
        "x",
        [],
        config(
            model,
            [lookup],
            execution=Execution(repetition=RepetitionPolicy(nudge_after=3, stop_after=9)),
        ),
    )
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [len(r.content) for r in results] == [1, 1, 2]
