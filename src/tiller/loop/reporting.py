"""Turns a tool's partial results and progress into events, from any thread."""

from __future__ import annotations

import asyncio
import logging
import threading

from tiller.events import AgentEvent, Progress, ToolExecutionUpdate
from tiller.loop.config import EventSink, LoopConfig
from tiller.loop.hooks import hook_failure_text
from tiller.messages import ToolResult
from tiller.tools.base import ToolContext

log = logging.getLogger("tiller.loop")


class LoopReporter:
    """The `ToolReporter` of one run; runs the update hooks.

    `emit` stamps events with the run's loop id; `sink` is the run's raw sink, through
    which a nested loop's events (already stamped with their own ids) are forwarded.
    """

    __slots__ = ("_config", "_emit", "_hook_failures", "_loop", "_sink", "_thread", "loop_id")

    def __init__(self, config: LoopConfig, emit: EventSink, sink: EventSink, loop_id: str) -> None:
        self._config = config
        self._emit = emit
        self._sink = sink
        self.loop_id = loop_id
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._hook_failures: dict[str, str] = {}

    def forward(self, event: AgentEvent) -> None:
        if threading.get_ident() == self._thread:
            self._sink(event)
        else:
            self._loop.call_soon_threadsafe(self._sink, event)

    def update(self, ctx: ToolContext, partial: ToolResult) -> None:
        if threading.get_ident() == self._thread:
            self._deliver_update(ctx, partial)
        else:  # a sync tool in its worker thread
            self._loop.call_soon_threadsafe(self._deliver_update, ctx, partial)

    def progress(self, ctx: ToolContext, text: str) -> None:
        event = Progress(tool_call_id=ctx.tool_call_id, tool_name=ctx.tool_name, text=text)
        if threading.get_ident() == self._thread:
            self._emit(event)
        else:
            self._loop.call_soon_threadsafe(self._emit, event)

    def take_hook_failure(self, tool_call_id: str) -> str | None:
        """What an update hook raised during the call, if anything (once)."""
        return self._hook_failures.pop(tool_call_id, None)

    def _deliver_update(self, ctx: ToolContext, partial: ToolResult) -> None:
        # A raising update hook must not escape into the tool (or the event loop): the
        # update is dropped and the call's result becomes an error naming the exception.
        text = partial.text
        before = self._config.governance.before_tool_execution_update
        if before is not None:
            try:
                allowed = before(ctx.tool_name, ctx.tool_call_id, text)
            except Exception as exc:
                self._hook_failed(ctx, "before_tool_execution_update", exc)
                return
            if not allowed:
                return
        self._emit(
            ToolExecutionUpdate(
                tool_call_id=ctx.tool_call_id, tool_name=ctx.tool_name, partial_result=partial
            )
        )
        after = self._config.governance.after_tool_execution_update
        if after is not None:
            try:
                after(ctx.tool_name, ctx.tool_call_id, text)
            except Exception as exc:
                self._hook_failed(ctx, "after_tool_execution_update", exc)

    def _hook_failed(self, ctx: ToolContext, hook: str, exc: Exception) -> None:
        log.warning("%s raised on %r; the call will be an error", hook, ctx.tool_name)
        self._hook_failures.setdefault(ctx.tool_call_id, hook_failure_text(hook, exc))
