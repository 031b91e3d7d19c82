"""The gate before a run executes: at most `limit` at once, in order; the limit follows
the event loop's lag. (The gate's own probe is slowed to a minute here, so only the
test changes the limit.)"""

from __future__ import annotations

import asyncio

import pytest

from tiller.server.admission import TARGET_LAG_S, Admission


async def _hold(gate: Admission, name: str, order: list[str], release: asyncio.Event) -> None:
    async with gate.admitted():
        order.append(name)
        await release.wait()


async def test_runs_beyond_the_limit_wait_their_turn_in_order() -> None:
    gate = Admission(2, least=2, probe_s=60)
    order: list[str] = []
    release = {name: asyncio.Event() for name in "abcd"}
    tasks = [asyncio.create_task(_hold(gate, n, order, release[n])) for n in "abcd"]
    await asyncio.sleep(0.01)
    assert (order, gate.running, gate.waiting) == (["a", "b"], 2, 2)
    release["b"].set()
    await asyncio.sleep(0.01)
    assert order == ["a", "b", "c"]  # the first waiting, not any
    for event in release.values():
        event.set()
    await asyncio.gather(*tasks)
    assert (order, gate.running, gate.waiting) == (["a", "b", "c", "d"], 0, 0)
    gate.stop()


async def test_a_run_cancelled_while_waiting_or_after_its_turn_gives_its_place_back() -> None:
    gate = Admission(1, least=1, probe_s=60)
    order: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_hold(gate, "first", order, release))
    waiting = asyncio.create_task(_hold(gate, "waiting", order, release))
    third = asyncio.create_task(_hold(gate, "third", order, release))
    await asyncio.sleep(0.01)
    waiting.cancel()  # still waiting: leaves the line
    await asyncio.sleep(0.01)
    assert gate.waiting == 1
    release.set()
    await asyncio.gather(first, third, waiting, return_exceptions=True)
    assert order == ["first", "third"]
    assert (gate.running, gate.waiting) == (0, 0)
    gate.stop()


def test_the_limit_comes_down_while_the_loop_lags_and_up_while_runs_wait() -> None:
    gate = Admission(100, least=4)
    start = gate.limit
    gate.adjust(TARGET_LAG_S * 3)
    assert gate.limit < start
    for _ in range(50):
        gate.adjust(TARGET_LAG_S * 3)
    assert gate.limit == 4  # never below the least
    gate.adjust(0.0)
    assert gate.limit == 4  # on time, but nobody waits: no reason to go up


async def test_the_limit_goes_up_to_the_most_while_the_loop_keeps_up() -> None:
    gate = Admission(8, least=1, probe_s=60)
    gate.limit = 1
    release = asyncio.Event()
    order: list[str] = []
    tasks = [asyncio.create_task(_hold(gate, str(n), order, release)) for n in range(20)]
    await asyncio.sleep(0.01)
    assert gate.running == 1
    for _ in range(20):
        gate.adjust(0.0)
    assert gate.limit == 8  # never above the most
    await asyncio.sleep(0.01)
    assert gate.running == 8  # the new places are taken at once
    release.set()
    await asyncio.gather(*tasks)
    gate.stop()


def test_least_and_most_must_make_sense() -> None:
    with pytest.raises(ValueError, match="least"):
        Admission(3, least=5)


async def test_a_run_waiting_for_a_person_gives_its_place_up_and_comes_back_at_once() -> None:
    gate = Admission(1, least=1, probe_s=60)
    order: list[str] = []
    decided, others_go = asyncio.Event(), asyncio.Event()

    async def waits_for_approval() -> None:
        async with gate.admitted() as place:
            order.append("asks")
            async with gate.released(place):
                await decided.wait()
            order.append("resumes")
            await others_go.wait()

    asking = asyncio.create_task(waits_for_approval())
    await asyncio.sleep(0.01)
    second = asyncio.create_task(_hold(gate, "second", order, others_go))
    third = asyncio.create_task(_hold(gate, "third", order, others_go))
    await asyncio.sleep(0.01)
    assert order == ["asks", "second"]  # the waiting run's place went to the next one
    decided.set()
    await asyncio.sleep(0.01)
    assert order == ["asks", "second", "resumes"]  # at once, though the gate is full
    assert (gate.running, gate.waiting) == (2, 1)
    others_go.set()
    await asyncio.gather(asking, second, third)
    assert order == ["asks", "second", "resumes", "third"]
    assert (gate.running, gate.waiting) == (0, 0)
    gate.stop()


async def test_a_run_cancelled_just_as_the_limit_rises_leaves_the_line_cleanly() -> None:
    gate = Admission(2, least=1, probe_s=60)
    gate.limit = 1
    order: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_hold(gate, "first", order, release))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(_hold(gate, "second", order, release))
    await asyncio.sleep(0.01)
    second.cancel()
    gate.adjust(0.0)  # a place opens before the cancelled one has left the line
    (outcome,) = await asyncio.gather(second, return_exceptions=True)
    assert isinstance(outcome, asyncio.CancelledError)
    assert (gate.running, gate.waiting) == (1, 0)
    release.set()
    await first
    gate.stop()


async def test_an_idle_gate_stops_probing() -> None:
    gate = Admission(4, probe_s=0.001)
    async with gate.admitted():
        assert gate._probe is not None
    await asyncio.wait_for(gate._probe, 5)  # ends by itself once nothing runs or waits


async def test_a_run_stopped_while_waiting_for_a_person_leaves_at_once() -> None:
    gate = Admission(1, least=1, probe_s=60)
    forever, done = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def waits_for_approval() -> None:
        async with gate.admitted() as place, gate.released(place):
            await forever.wait()

    asking = asyncio.create_task(waits_for_approval())
    await asyncio.sleep(0.01)
    other = asyncio.create_task(_hold(gate, "other", order, done))
    await asyncio.sleep(0.01)
    asking.cancel()  # the gate is full: it must not wait for a place to stop
    await asyncio.wait_for(asyncio.gather(asking, return_exceptions=True), 5)
    assert (gate.running, gate.waiting) == (1, 0)
    done.set()
    await other
    assert gate.running == 0
    gate.stop()
