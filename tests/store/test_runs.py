"""Runs, their events and their tool call journal."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from tiller.store import Store
from tiller.store.errors import RunNotFound, SessionBusyError, SessionNotFound
from tiller.store.runs import Multitask, RunStatus
from tiller.tools.effects import ToolEffect

HELLO = [{"role": "user", "content": "hello"}]


async def test_a_run_is_stored_queued_and_owned(store: Store) -> None:
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    started = await store.runs.start("ann", session.id, HELLO)
    assert started.ahead == []
    run = await store.runs.get("ann", started.run.id)
    assert (run.status, run.input, run.attempts) == (RunStatus.QUEUED, HELLO, 0)
    with pytest.raises(RunNotFound):
        await store.runs.get("bob", run.id)
    with pytest.raises(SessionNotFound):
        await store.runs.start("bob", session.id, HELLO)
    assert [r.id for r in await store.runs.list("ann", session.id)] == [run.id]
    assert await store.runs.list("bob", session.id) == []


async def test_a_busy_session_rejects_or_queues_by_multitask(store: Store) -> None:
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    first = (await store.runs.start("ann", session.id, HELLO)).run
    with pytest.raises(SessionBusyError, match="multitask=enqueue") as busy:
        await store.runs.start("ann", session.id, HELLO)
    assert busy.value.run_id == first.id
    queued = await store.runs.start("ann", session.id, HELLO, Multitask.ENQUEUE)
    assert queued.ahead == [first.id]
    third = await store.runs.start("ann", session.id, HELLO, Multitask.INTERRUPT)
    assert third.ahead == [first.id, queued.run.id]
    assert [r.id for r in await store.runs.unfinished(session.id)] == [
        first.id,
        queued.run.id,
        third.run.id,
    ]


async def test_a_run_starts_again_after_a_restart_and_ends_once(store: Store) -> None:
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    run = (await store.runs.start("ann", session.id, HELLO)).run
    assert (await store.runs.mark_running(run.id)).attempts == 1
    again = await store.runs.mark_running(run.id)  # a restart picks it up
    assert (again.status, again.attempts, again.started_at) == (
        RunStatus.RUNNING,
        2,
        (await store.runs.find(run.id)).started_at,
    )
    assert await store.runs.finish(run.id, RunStatus.COMPLETED, usage={"input_tokens": 3})
    assert not await store.runs.finish(run.id, RunStatus.FAILED, error="late")
    ended = await store.runs.find(run.id)
    assert (ended.status, ended.error, ended.usage) == (
        RunStatus.COMPLETED,
        None,
        {"input_tokens": 3},
    )
    assert (await store.runs.mark_running(run.id)).status is RunStatus.COMPLETED
    with pytest.raises(ValueError, match="not how a run ends"):
        await store.runs.finish(run.id, RunStatus.RUNNING)


async def test_events_are_numbered_per_run_and_read_after_a_number(store: Store) -> None:
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    run = (await store.runs.start("ann", session.id, HELLO)).run
    await store.run_events.append(run.id, [(1, "agent_start", {}), (2, "turn_start", {"t": 1})])
    await store.run_events.append(run.id, [(3, "agent_end", {})])
    assert await store.run_events.last_seq(run.id) == 3
    assert [e.type for e in await store.run_events.after(run.id, 1)] == [
        "turn_start",
        "agent_end",
    ]
    assert (await store.run_events.after(run.id, 1, limit=1))[0].data == {"t": 1}
    with pytest.raises(IntegrityError):
        await store.run_events.append(run.id, [(3, "again", {})])
    assert await store.run_events.last_seq("no-such-run") == 0


async def test_the_last_numbers_of_many_runs_are_read_together(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tiller.store.run_events.IDS_PER_QUERY", 2)  # several statements
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    ids = []
    for n in range(5):
        run = (await store.runs.start("ann", session.id, HELLO, multitask=Multitask.ENQUEUE)).run
        await store.run_events.append(run.id, [(seq, "step", {}) for seq in range(1, n + 1)])
        ids.append(run.id)
    last = await store.run_events.last_seqs([*ids, "no-such-run", ids[3]])
    assert last == {ids[n]: n for n in range(1, 5)}  # a run with no events is left out
    assert await store.run_events.last_seqs([]) == {}


async def test_the_tool_call_journal_tells_a_restart_what_happened(store: Store) -> None:
    session = await store.sessions.create("ann", title="S", model="local:smollm2")
    run = (await store.runs.start("ann", session.id, HELLO)).run
    args = {"to": "ann"}
    assert (
        await store.run_tool_calls.started(run.id, "c1", "send", ToolEffect.EXTERNAL, args) is None
    )
    interrupted = await store.run_tool_calls.started(
        run.id, "c1", "send", ToolEffect.EXTERNAL, args
    )
    assert interrupted is not None
    assert not interrupted.finished
    await store.run_tool_calls.finished(run.id, "c1", {"text": "sent"})
    done = await store.run_tool_calls.started(run.id, "c1", "send", ToolEffect.EXTERNAL, args)
    assert done is not None
    assert done.finished
    assert done.result == {"text": "sent"}
    await store.run_tool_calls.finished(run.id, "c1", {"text": "twice"})  # first one kept
    (entry,) = await store.run_tool_calls.of_run(run.id)
    assert (entry.effect, entry.result) == (ToolEffect.EXTERNAL, {"text": "sent"})
