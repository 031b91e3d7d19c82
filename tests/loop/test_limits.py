"""Run limits end the run with a marker that names the limit and the figures."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import Recorder, config
from tiller import tool
from tiller.events import AgentEnd
from tiller.loop import Limits, agent_loop, agent_loop_continue
from tiller.loop.options import Execution
from tiller.messages import ExtensionMessage, Message, ToolResultMessage, Usage
from tiller.models import Reply, ScriptedModel, call


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def endless(n: int = 20, usage: Usage | None = None) -> ScriptedModel:
    return ScriptedModel([Reply(calls=[call("add", a=i, b=1)], usage=usage) for i in range(n)])


async def run_limited(model: ScriptedModel, limits: Limits) -> tuple[list[Message], Recorder]:
    rec = Recorder()
    new = await agent_loop("go", [], config(model, [add], execution=Execution(limits=limits)), rec)
    return new, rec


async def test_max_turns() -> None:
    new, rec = await run_limited(endless(), Limits(max_turns=3))
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.kind == "run_stopped"
    assert marker.text == "[Run stopped: max_turns limit reached (3 of 3 turns used)]"
    assert marker.data == {"limit": "max_turns", "used": 3, "max": 3}
    stats = rec.of(AgentEnd)[0].stats
    assert stats.turns == 3
    assert stats.stopped_by == "max_turns"
    # The history ends with tool results, so the run can be continued later.
    assert isinstance(new[-2], ToolResultMessage)


async def test_max_total_tokens() -> None:
    model = endless(usage=Usage(input_tokens=60, output_tokens=40))
    new, rec = await run_limited(model, Limits(max_total_tokens=250))
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.text == "[Run stopped: max_total_tokens limit reached (300 of 250 tokens used)]"
    assert rec.of(AgentEnd)[0].stats.turns == 3


async def test_max_cost() -> None:
    model = endless(usage=Usage(input_tokens=10, output_tokens=10, cost_usd=0.02))
    new, _ = await run_limited(model, Limits(max_cost_usd=0.05))
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.data["limit"] == "max_cost_usd"
    assert "$0.0600 of $0.0500 spent" in marker.text


async def test_unknown_cost_does_not_trip_the_cost_limit() -> None:
    model = ScriptedModel([Reply(calls=[call("add", a=1, b=1)]), Reply("done")])
    _new, rec = await run_limited(model, Limits(max_cost_usd=0.01))
    assert rec.of(AgentEnd)[0].stats.stopped_by is None


async def test_max_wall_time_interrupts_a_slow_model() -> None:
    model = ScriptedModel([Reply("slow " * 200, chunk_size=5, delay_s=0.01)])
    new, rec = await run_limited(model, Limits(max_wall_time_s=0.1))
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.data["limit"] == "max_wall_time_s"
    assert marker.text.startswith("[Run stopped: max_wall_time_s limit reached (")
    stats = rec.of(AgentEnd)[0].stats
    assert stats.stop_reason == "aborted"
    assert stats.stopped_by == "max_wall_time_s"


async def test_a_run_stopped_by_a_limit_can_be_continued() -> None:
    new, _ = await run_limited(endless(), Limits(max_turns=1))
    model = ScriptedModel(["finished"])
    more = await agent_loop_continue(new, config(model, [add]))
    assert more[-1].text == "finished"


async def test_limits_do_not_stop_a_run_that_finishes_in_time() -> None:
    model = ScriptedModel([Reply(calls=[call("add", a=1, b=1)]), Reply("done")])
    new, rec = await run_limited(model, Limits(max_turns=2, max_wall_time_s=30))
    assert rec.of(AgentEnd)[0].stats.stopped_by is None
    assert new[-1].text == "done"
    await asyncio.sleep(0)


async def test_a_run_mixing_a_priced_and_an_unpriced_model_reports_no_cost() -> None:
    priced = Usage(10, 10, cost_usd=0.5)
    unpriced = Usage(10, 10, cost_usd=None)
    model = ScriptedModel(
        [Reply(calls=[call("add", a=1, b=2)], usage=priced), Reply("3", usage=unpriced)]
    )
    sink = Recorder()
    await agent_loop("add", [], config(model, [add]), sink)
    stats = sink.of(AgentEnd)[0].stats
    assert stats.cost_usd is None
    assert stats.usage.total_tokens == 40
    assert stats.unpriced_models == [f"{model.provider}:{model.name}"]


async def test_a_fully_priced_run_names_no_unpriced_model() -> None:
    model = ScriptedModel([Reply("hi", usage=Usage(1, 1, cost_usd=0.25))])
    sink = Recorder()
    await agent_loop("x", [], config(model), sink)
    stats = sink.of(AgentEnd)[0].stats
    assert stats.cost_usd == 0.25
    assert stats.unpriced_models == []


async def test_a_zero_turn_limit_makes_no_model_call() -> None:
    model = endless()
    new, rec = await run_limited(model, Limits(max_turns=0))
    assert model.requests == []
    marker = new[-1]
    assert isinstance(marker, ExtensionMessage)
    assert marker.text == "[Run stopped: max_turns limit reached (0 of 0 turns used)]"
    assert rec.of(AgentEnd)[0].stats.stopped_by == "max_turns"
    assert rec.of(AgentEnd)[0].stats.turns == 0


@pytest.mark.parametrize(
    "limits",
    [Limits(max_total_tokens=0), Limits(max_wall_time_s=0), Limits(max_cost_usd=0)],
)
async def test_any_zero_limit_means_nothing_runs(limits: Limits) -> None:
    model = endless()
    new, _ = await run_limited(model, limits)
    assert model.requests == []
    assert isinstance(new[-1], ExtensionMessage)


@pytest.mark.parametrize(
    "name", ["max_turns", "max_total_tokens", "max_wall_time_s", "max_cost_usd"]
)
def test_a_negative_limit_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Limits(**{name: -1})
