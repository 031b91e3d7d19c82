"""Following a run's events: a run executing in this process hands over every event it
stores, so its followers read the store only to catch up; a run executing elsewhere is
polled."""

from __future__ import annotations

import asyncio
from typing import Any

from tiller.server.event_log import EventHub, EventWriter, RunEventLog
from tiller.server.event_stream import run_events
from tiller.store import Store
from tiller.store.run_events import StoredEvent


async def _a_run(store: Store) -> str:
    session = await store.sessions.create("ann", title="t", model="test:scripted")
    message = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    started = await store.runs.start("ann", session.id, [message])
    return started.run.id


def _count_reads(store: Store) -> list[int]:
    reads: list[int] = []
    after = store.run_events.after

    async def counted(run_id: str, seq: int = 0, **kw: Any) -> list[StoredEvent]:
        reads.append(seq)
        return await after(run_id, seq, **kw)

    store.run_events.after = counted  # type: ignore[method-assign]
    return reads


async def _follow(store: Store, hub: EventHub, run_id: str, seen: list[int]) -> None:
    async for event in run_events(store, hub, run_id, 0):
        assert event is not None
        seen.append(event.seq)


async def test_a_run_executing_here_is_followed_without_reading_the_store(store: Store) -> None:
    hub = EventHub(store.run_events.last_seqs, poll_interval=0.02)
    writer = EventWriter(store, hub)
    run_id = await _a_run(store)
    log = RunEventLog(writer, run_id, 0)
    reads = _count_reads(store)
    seen: list[int] = []
    follower = asyncio.create_task(_follow(store, hub, run_id, seen))
    await asyncio.sleep(0.05)
    for _ in range(3):
        log.record("step", {})
        await asyncio.sleep(0.1)  # quieter than the poll interval, five times over
    log.record("run_finished", {"status": "completed"})
    await log.close()
    await asyncio.wait_for(follower, 5)
    await writer.stop()
    assert seen == [1, 2, 3, 4]
    assert reads == [0]  # the first read only, to catch up


async def test_a_run_executing_elsewhere_is_polled(store: Store) -> None:
    hub = EventHub(store.run_events.last_seqs, poll_interval=0.02)
    run_id = await _a_run(store)
    seen: list[int] = []
    follower = asyncio.create_task(_follow(store, hub, run_id, seen))
    await asyncio.sleep(0.05)
    # Another process stores the events: nothing is handed over, nothing wakes us.
    await store.run_events.append(run_id, [(1, "step", {}), (2, "run_finished", {})])
    await asyncio.wait_for(follower, 5)
    assert seen == [1, 2]


async def test_followers_of_runs_not_executing_here_share_one_poll(store: Store) -> None:
    polls: list[int] = []
    five_polls = asyncio.Event()

    async def counted_polls(ids: list[str]) -> dict[str, int]:
        polls.append(len(ids))
        if len(polls) == 5:
            five_polls.set()
        return await store.run_events.last_seqs(ids)

    hub = EventHub(counted_polls, poll_interval=0.02)
    run_ids = [await _a_run(store) for _ in range(20)]
    reads = _count_reads(store)
    seen: dict[str, list[int]] = {run_id: [] for run_id in run_ids}
    followers = [asyncio.create_task(_follow(store, hub, r, seen[r])) for r in run_ids]
    await asyncio.wait_for(five_polls.wait(), 10)  # five poll rounds, nothing new
    assert reads == [0] * 20  # each follower's first read only
    assert set(polls) == {20}  # one query a round, for all
    # Another process stores one run's events: only its follower reads them.
    await store.run_events.append(run_ids[0], [(1, "step", {}), (2, "run_finished", {})])
    await asyncio.wait_for(followers[0], 5)
    assert seen[run_ids[0]] == [1, 2]
    assert reads == [0] * 21
    for follower in followers[1:]:
        follower.cancel()
    await asyncio.gather(*followers[1:], return_exceptions=True)
    await hub.stop()
