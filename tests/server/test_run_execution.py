"""Executing a stored run: history and events stored as it goes, tool calls journaled,
approvals waited for, and a run cut off mid-way finished by the next execution without
running a call with effects twice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tiller import tool
from tiller.codec import message_from_data
from tiller.messages import TextContent, ToolResult, ToolResultMessage
from tiller.server.event_log import EventHub
from tiller.server.run_execution import UNKNOWN_OUTCOME, RunControls, RunExecution
from tiller.server.session_agents import ApprovalRule, SessionAgents
from tiller.store import Store
from tiller.store.errors import InvalidDocumentError
from tiller.store.runs import RunStatus
from tiller.testing import Reply, ScriptedModel, call
from tiller.tools.effects import ToolEffect


class Outbox:
    """A tool with effects whose calls the test can hold (`gate`) and count (`sent`)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.sending = asyncio.Event()

        @tool(effect=ToolEffect.EXTERNAL)
        async def send(to: str) -> str:
            """Send a message."""
            self.sent.append(to)
            self.sending.set()
            await self.gate.wait()
            return f"sent to {to}"

        self.tool = send


class Harness:
    def __init__(self, store: Store, tmp_path: Path, model: ScriptedModel, **rule: Any) -> None:
        self.store = store
        self.hub = EventHub(store.run_events.last_seqs, poll_interval=0.05)
        self.agents = SessionAgents(tmp_path, model, "test:scripted")
        self.outbox = Outbox()
        self.agents.tools = lambda session: [self.outbox.tool]  # type: ignore[method-assign]
        self.rule = ApprovalRule(**rule) if rule else ApprovalRule(effects=frozenset())

    async def start(self, text: str = "tell ann") -> tuple[str, str]:
        session = await self.store.sessions.create("ann", title="t", model="test:scripted")
        started = await self.store.runs.start(
            "ann", session.id, [{"role": "user", "content": [{"type": "text", "text": text}]}]
        )
        return session.id, started.run.id

    async def execution(self, run_id: str, controls: RunControls | None = None) -> RunExecution:
        run = await self.store.runs.mark_running(run_id)
        session = await self.store.sessions.get(run.owner_id, run.session_id)
        return RunExecution(
            self.store, self.hub, self.agents, self.rule, run, session, controls or RunControls()
        )


async def test_a_run_stores_its_history_and_numbered_events(store: Store, tmp_path: Path) -> None:
    model = ScriptedModel([Reply(calls=[call("send", to="ann")]), Reply("done")])
    harness = Harness(store, tmp_path, model)
    session_id, run_id = await harness.start()
    status = await (await harness.execution(run_id)).execute()
    assert status is RunStatus.COMPLETED
    history = await store.sessions.history(session_id)
    assert [m.message["role"] for m in history] == ["user", "assistant", "tool_result", "assistant"]
    assert {m.run_id for m in history} == {run_id}
    events = await store.run_events.after(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].type == "agent_start"
    assert events[-1].type == "run_finished"
    assert events[-1].data["status"] == "completed"
    (entry,) = await store.run_tool_calls.of_run(run_id)
    assert entry.finished
    assert message_from_data(entry.result or {}).text == "sent to ann"
    assert (await store.runs.find(run_id)).status is RunStatus.COMPLETED
    assert harness.outbox.sent == ["ann"]


async def test_a_call_with_effects_cut_off_by_a_crash_is_not_run_again(
    store: Store, tmp_path: Path
) -> None:
    model = ScriptedModel([Reply(calls=[call("send", to="ann")]), Reply("I could not confirm")])
    harness = Harness(store, tmp_path, model)
    harness.outbox.gate.clear()  # the call hangs until the "crash"
    session_id, run_id = await harness.start()
    first = asyncio.create_task((await harness.execution(run_id)).execute())
    await asyncio.wait_for(harness.outbox.sending.wait(), 10)
    first.cancel()  # the process dies while the call runs
    await asyncio.gather(first, return_exceptions=True)
    assert (await store.runs.find(run_id)).status is RunStatus.RUNNING
    harness.outbox.gate.set()
    status = await (await harness.execution(run_id)).execute()
    assert status is RunStatus.COMPLETED
    assert harness.outbox.sent == ["ann"]  # once
    history = [message_from_data(m.message) for m in await store.sessions.history(session_id)]
    results = [m for m in history if isinstance(m, ToolResultMessage)]
    assert len(results) == 1
    assert results[0].is_error
    assert results[0].text == UNKNOWN_OUTCOME
    assert history[-1].text == "I could not confirm"
    types = [e.type for e in await store.run_events.after(run_id)]
    assert "run_resumed" in types
    assert types[-1] == "run_finished"


async def test_a_call_that_needs_approval_waits_and_a_rejection_denies_it(
    store: Store, tmp_path: Path
) -> None:
    model = ScriptedModel([Reply(calls=[call("send", to="bo")]), Reply("ok, not sent")])
    harness = Harness(store, tmp_path, model, effects=frozenset({ToolEffect.EXTERNAL}))
    _, run_id = await harness.start()
    task = asyncio.create_task((await harness.execution(run_id)).execute())
    pending = await _pending(store)
    assert (pending.run_id, pending.owner_id, pending.kind) == (run_id, "ann", "tool_call")
    assert pending.context["tool"] == "send"
    assert pending.context["arguments"] == {"to": "bo"}
    await store.approvals.decide(pending.id, False, "not today", decided_by="ops")
    assert await asyncio.wait_for(task, 10) is RunStatus.COMPLETED
    assert harness.outbox.sent == []
    types = [e.type for e in await store.run_events.after(run_id)]
    assert types.index("approval_requested") < types.index("approval_decided")


async def test_an_approval_asked_before_a_restart_is_not_asked_again(
    store: Store, tmp_path: Path
) -> None:
    model = ScriptedModel([Reply(calls=[call("send", to="cy")]), Reply("sent")])
    harness = Harness(store, tmp_path, model, effects=frozenset({ToolEffect.EXTERNAL}))
    _, run_id = await harness.start()
    first = asyncio.create_task((await harness.execution(run_id)).execute())
    pending = await _pending(store)
    first.cancel()  # the server stops while the approval waits
    await asyncio.gather(first, return_exceptions=True)
    await store.approvals.decide(pending.id, True, decided_by="ops")  # decided while down
    status = await asyncio.wait_for((await harness.execution(run_id)).execute(), 10)
    assert status is RunStatus.COMPLETED
    assert harness.outbox.sent == ["cy"]
    assert len(await store.approvals.list()) == 1


async def _pending(store: Store) -> Any:
    for _ in range(500):
        found = await store.approvals.list(status="pending")
        if found:
            return found[0]
        await asyncio.sleep(0.02)
    raise AssertionError("no approval was requested")


async def test_an_event_that_is_not_json_stops_the_run_with_a_clear_error(
    store: Store, tmp_path: Path
) -> None:
    @tool
    async def odd() -> ToolResult:
        """Return a result whose details cannot be stored."""
        return ToolResult([TextContent("ok")], details={"at": object()})

    model = ScriptedModel([Reply(calls=[call("odd")]), Reply("done")])
    harness = Harness(store, tmp_path, model)
    harness.agents.tools = lambda session: [odd]  # type: ignore[method-assign]
    _, run_id = await harness.start()
    with pytest.raises(InvalidDocumentError, match="JSON"):
        await (await harness.execution(run_id)).execute()
    run = await store.runs.find(run_id)
    assert run.status is RunStatus.FAILED
    assert "JSON" in (run.error or "")
    events = await store.run_events.after(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # nothing skipped
    assert "tool_execution_end" not in [e.type for e in events]
