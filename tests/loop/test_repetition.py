"""Repeated identical tool calls get a nudge, then stop the run."""

from __future__ import annotations

from tests.helpers import Recorder, config
from tiller import tool
from tiller.events import AgentEnd, LoopDetected
from tiller.loop import RepetitionPolicy, agent_loop
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
        config(model, [lookup], repetition=RepetitionPolicy(nudge_after=2, stop_after=4)),
        rec,
    )
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [len(r.content) for r in results] == [1, 2, 2, 2]
    assert (
        results[1]
        .content[1]
        .text.startswith(  # type: ignore[union-attr]
            "[Note: this is call 2 of 'lookup' with these same arguments"
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
    new = await agent_loop("w", [], config(model, [lookup], repetition=None))
    assert new[-1].text == "ok"
