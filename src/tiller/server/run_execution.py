"""Executing one stored run, from its start or from where a crash left it.

The run's state is the session's stored history: the run hands each new message to
the store before the next model call and before its tool calls run
(`Execution.persist`), so a run started again after a crash finds its own messages
there and goes on from the last one. Its events are numbered and stored before they
are sent (`RunEventLog`).

A tool call with effects is written to the run's tool call journal before it runs and
again, with its result, when it has finished (one that only reads needs no entry: it may
simply run again). On a restart, a call of the last reply that has no
result in the history is settled from the journal: a finished call gets its stored
result; a call that was running when the process died is run again only if it only
reads, and otherwise gets a result saying its outcome is unknown, so the model (and
the person reading) can check before anything is done twice; a call that never
started runs now. Calls the approval rule names wait for a person's decision in the
approvals queue, which survives restarts: an approval requested before a crash is
found again, not asked twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from opentelemetry.trace import Span
from sqlalchemy.exc import IntegrityError

from tiller.cancellation import CancelToken
from tiller.codec import message_from_data, to_data
from tiller.events import (
    AgentEnd,
    AgentEvent,
    MessageEnd,
    RunStats,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnStart,
)
from tiller.loop.config import LoopConfig
from tiller.loop.hooks import BeforeVerdict, Deny
from tiller.loop.options import Execution, Governance
from tiller.loop.run import agent_loop, agent_loop_continue
from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
)
from tiller.server.event_log import RUN_FINISHED, EventHub, EventWriter, RunEventLog, encoded
from tiller.server.session_agents import ApprovalRule, SessionAgents, context_options
from tiller.server.tracing import Tracing
from tiller.solve.tool_calls import call_tool
from tiller.store import Store
from tiller.store.approvals import ApprovalStatus
from tiller.store.runs import Run, RunStatus
from tiller.store.sessions import Session, is_sensitive
from tiller.tools.base import Tool
from tiller.tools.effects import ToolEffect, effect_of

log = logging.getLogger(__name__)

UNKNOWN_OUTCOME = (
    "The process running this call stopped before it finished, so whether it took effect "
    "is unknown. It was not run again: check its effect before calling it again."
)
# How long a tool call waits for a person's decision before it is refused, in seconds.
APPROVAL_TIMEOUT_S = 24 * 3600.0


@dataclass(slots=True)
class RunControls:
    """What clients can do to a run while it executes in this process."""

    cancel: CancelToken = field(default_factory=CancelToken)
    steering: deque[Message] = field(default_factory=deque)
    follow_ups: deque[Message] = field(default_factory=deque)


class RunExecution:
    """One execution of a stored run in this process (a restart makes another)."""

    def __init__(
        self,
        store: Store,
        hub: EventHub,
        agents: SessionAgents,
        approvals: ApprovalRule,
        run: Run,
        session: Session,
        controls: RunControls,
        tracing: Tracing | None = None,
        span: Span | None = None,
        writer: EventWriter | None = None,
        waiting_for_a_person: Callable[[], AbstractAsyncContextManager[None]] | None = None,
    ) -> None:
        self.writer = writer or EventWriter(store, hub)
        # Around the wait for an approval: the run gives its place among those executing
        # up meanwhile (`Admission.released`).
        self.waiting_for_a_person = waiting_for_a_person or _nothing_to_release
        self.tracing = tracing or Tracing(None)
        self.span = span  # the run's, when tracing is on
        self.spans: dict[str, Span | None] = {}  # open model and tool call spans
        self.store = store
        self.hub = hub
        self.agents = agents
        self.approvals = approvals
        self.run = run
        self.session = session
        self.controls = controls
        self.tools: dict[str, Tool] = {t.name: t for t in agents.tools(session)}
        self.stats: RunStats | None = None
        self.results: dict[str, ToolResultMessage] = {}
        self.saved = 0  # of this execution's new messages, how many are stored
        self.journaled: set[str] = set()  # calls with effects written to the journal
        self.events: RunEventLog | None = None
        self.sealed = is_sensitive(session.sensitivity)

    async def execute(self) -> RunStatus:
        """Run to the end; the status the run ended with (stored, with its events)."""
        last_seq = await self.store.run_events.last_seq(self.run.id)
        self.events = RunEventLog(self.writer, self.run.id, last_seq, sealed=self.sealed)
        status, error = RunStatus.FAILED, None
        try:
            status, error = await self._execute()
        except asyncio.CancelledError:  # the process is stopping: the run goes on at the next start
            await self.events.abandon()
            raise
        except Exception as exc:
            log.exception("run %s failed", self.run.id)
            status, error = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
        await self._finish(status, error)
        return status

    async def _execute(self) -> tuple[RunStatus, str | None]:
        stored = await self.store.sessions.history(self.session.id)
        history = [message_from_data(m.message) for m in stored]
        ours = sum(1 for m in stored if m.run_id == self.run.id)
        config = self._config()
        assert self.events is not None
        if ours == 0:  # a first start (or a restart before anything was stored)
            prompts = [message_from_data(m) for m in self.run.input]
            new = await agent_loop(prompts, history, config, self._sink, self._cancel)
        else:
            self.events.record("run_resumed", {"messages_kept": ours})
            settled = await self._settle_open_calls(history)
            if settled:
                await self._save_messages(settled)
                history += settled
                self.saved = 0
            if _answered(history):
                return RunStatus.COMPLETED, None
            new = await agent_loop_continue(history, config, self._sink, self._cancel)
        await self._save_messages(new[self.saved :])
        stats = self.stats
        if stats is None or stats.stop_reason == "error":
            return RunStatus.FAILED, stats.error if stats else "the run ended without its stats"
        if stats.stop_reason == "aborted":
            return RunStatus.CANCELLED, None
        return RunStatus.COMPLETED, None

    @property
    def _cancel(self) -> CancelToken:
        return self.controls.cancel

    def _config(self) -> LoopConfig:
        session = self.session
        return LoopConfig(
            model=self.agents.model(session.model),
            tools=list(self.tools.values()),
            system_prompt=session.system_prompt,
            governance=Governance(
                before_tool_execution=self._before_tool,
                after_tool_execution=self._after_tool,
            ),
            context=context_options(session),
            execution=Execution(persist=self._persist),
            get_steering_messages=lambda: _drain(self.controls.steering),
            get_follow_up_messages=lambda: _drain(self.controls.follow_ups),
            loop_id=self.run.id,
        )

    # ── what the loop calls ─────────────────────────────────────────────────

    def _sink(self, event: AgentEvent) -> None:
        assert self.events is not None
        if self.span is not None:
            self._trace(event)
        if isinstance(event, AgentEnd):
            self.stats = event.stats
        elif isinstance(event, ToolExecutionEnd):
            self.results[event.tool_call_id] = ToolResultMessage(
                event.tool_call_id, event.tool_name, event.result.content, event.is_error
            )
        self.events.emit(event)

    def _trace(self, event: AgentEvent) -> None:
        """Model and tool call spans, opened and closed by the loop's events."""
        tracing = self.tracing
        if isinstance(event, TurnStart):
            model = self.session.model
            self.spans["model"] = tracing.start("model call", self.span, **{"tiller.model": model})
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            message = event.message
            error = message.error_message if message.stop_reason == "error" else None
            tracing.end(self.spans.pop("model", None), error)
        elif isinstance(event, ToolExecutionStart):
            self.spans[event.tool_call_id] = tracing.start(
                "tool call", self.span, **{"tiller.tool": event.tool_name}
            )
        elif isinstance(event, ToolExecutionEnd):
            error = event.result.text[:200] if event.is_error else None
            tracing.end(self.spans.pop(event.tool_call_id, None), error)

    async def _persist(self, messages: Sequence[Message]) -> None:
        await self._save_messages(messages)
        self.saved += len(messages)

    async def _save_messages(self, messages: Sequence[Message]) -> None:
        assert self.events is not None
        if messages:
            await self.writer.append_messages(
                self.session.id, [encoded(m, "a message") for m in messages], self.run.id
            )
        self.events.check()  # a run whose events cannot be stored stops here

    async def _before_tool(
        self, name: str, call_id: str, arguments: dict[str, Any]
    ) -> BeforeVerdict:
        tool = self.tools.get(name)
        if self.approvals.needs_approval(tool, name):
            refused = await self._approval(name, call_id, arguments, tool)
            if refused is not None:
                return refused
        effect = effect_of(tool) if tool is not None else ToolEffect.EXTERNAL
        if effect is ToolEffect.READ:
            return None  # safe to run again after a crash: nothing to journal
        await self.store.run_tool_calls.started(
            self.run.id, call_id, name, effect, arguments, sealed=self.sealed
        )
        self.journaled.add(call_id)
        if effect is ToolEffect.EXTERNAL:
            await self.store.audit.append(
                f"user:{self.run.owner_id}",
                "tool.external_call",
                call_id,
                {"tool": name, "run_id": self.run.id, "session_id": self.session.id},
            )
        return None

    async def _after_tool(self, name: str, call_id: str, is_error: bool) -> None:
        result = self.results.pop(call_id, None)  # from its tool_execution_end
        if call_id not in self.journaled:
            return
        self.journaled.discard(call_id)
        data = to_data(result) if result is not None else {"is_error": is_error}
        await self.store.run_tool_calls.finished(self.run.id, call_id, data, sealed=self.sealed)

    async def _approval(
        self, name: str, call_id: str, arguments: dict[str, Any], tool: Tool | None
    ) -> Deny | None:
        """Ask (once, even across restarts) and wait; a `Deny` unless approved."""
        assert self.events is not None
        approval_id = hashlib.sha256(f"{self.run.id}/{call_id}".encode()).hexdigest()[:32]
        context = {
            "session_id": self.session.id,
            "run_id": self.run.id,
            "tool": name,
            "call_id": call_id,
            "arguments": arguments,
            "effect": (effect_of(tool) if tool is not None else ToolEffect.EXTERNAL).value,
        }
        due = self.store.now() + timedelta(seconds=APPROVAL_TIMEOUT_S)
        # Asked before this process restarted: wait for that one.
        with contextlib.suppress(IntegrityError):
            await self.store.approvals.request(
                None,
                "tool_call",
                "before_tool_execution",
                context,
                due,
                run_id=self.run.id,
                owner_id=self.run.owner_id,
                approval_id=approval_id,
            )
        self.events.record("approval_requested", {"approval_id": approval_id, **context})
        await self.events.flush()
        async with self.waiting_for_a_person():
            decided = await self.store.approvals.wait(approval_id)
        self.events.record(
            "approval_decided",
            {
                "approval_id": approval_id,
                "decision": decided.status.value,
                "comment": decided.comment or "",
            },
        )
        if decided.status is ApprovalStatus.APPROVED:
            return None
        why = decided.comment or decided.status.value
        return Deny(f"a person did not approve this call ({decided.status.value}: {why})")

    # ── after a restart ─────────────────────────────────────────────────────

    async def _settle_open_calls(self, history: list[Message]) -> list[Message]:
        """Results for the calls of the last reply that have none (see the module)."""
        open_calls = _open_calls(history)
        settled: list[Message] = []
        for call in open_calls:
            entry = await self.store.run_tool_calls.get(self.run.id, call.id)
            tool = self.tools.get(call.name)
            if entry is not None and entry.finished and "role" in (entry.result or {}):
                assert entry.result is not None
                settled.append(message_from_data(entry.result))
                continue
            if entry is not None and not entry.finished and entry.effect != ToolEffect.READ:
                settled.append(_result(call, UNKNOWN_OUTCOME, is_error=True))
                continue
            settled.append(await self._run_now(call, tool))
        return settled

    async def _run_now(self, call: ToolCall, tool: Tool | None) -> ToolResultMessage:
        if tool is None:
            return _result(call, f"unknown tool {call.name!r}", is_error=True)
        governance = Governance(
            before_tool_execution=self._before_tool_for(call.id),
            after_tool_execution=lambda *_: None,
        )
        result: ToolResult = await call_tool(tool, dict(call.arguments), governance, self._cancel)
        message = ToolResultMessage(call.id, call.name, result.content, result.is_error)
        if call.id in self.journaled:
            self.journaled.discard(call.id)
            await self.store.run_tool_calls.finished(
                self.run.id, call.id, to_data(message), sealed=self.sealed
            )
        return message

    def _before_tool_for(self, call_id: str) -> Any:
        async def before(name: str, _: str, arguments: dict[str, Any]) -> BeforeVerdict:
            return await self._before_tool(name, call_id, arguments)

        return before

    async def _finish(self, status: RunStatus, error: str | None) -> None:
        assert self.events is not None
        stats = self.stats
        usage = to_data(stats.usage) if stats is not None else None
        stop_reason = stats.stop_reason if stats is not None else None
        try:
            await self.store.runs.finish(
                self.run.id, status, stop_reason=stop_reason, error=error, usage=usage
            )
            self.events.record(
                RUN_FINISHED, {"status": status.value, "stop_reason": stop_reason, "error": error}
            )
        finally:
            await self.events.close()


def _open_calls(history: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last reply that no result in the history answers."""
    answered: set[str] = set()
    for message in reversed(history):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            return [call for call in message.tool_calls if call.id not in answered]
        elif not isinstance(message, ExtensionMessage):
            return []
    return []


def _answered(history: Sequence[Message]) -> bool:
    """The history ends with a reply that asks for nothing more: the run had finished."""
    last = next((m for m in reversed(history) if not isinstance(m, ExtensionMessage)), None)
    return isinstance(last, AssistantMessage) and not last.tool_calls


def _result(call: ToolCall, text: str, *, is_error: bool) -> ToolResultMessage:
    return ToolResultMessage(call.id, call.name, [TextContent(text)], is_error)


@contextlib.asynccontextmanager
async def _nothing_to_release() -> AsyncIterator[None]:
    yield


def _drain(queue: deque[Message]) -> list[Message]:
    items = list(queue)
    queue.clear()
    return items
