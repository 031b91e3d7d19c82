"""`Agent`: the stateful wrapper around the loop.

It owns the history, the steering and follow-up queues, the cancel token of
the current run and the subscribers; each run is one `agent_loop` call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tiller.agent.persistence import HISTORY_FORMAT, parse_saved, save_text_atomically
from tiller.agent.result import RunResult
from tiller.cancellation import CancelToken
from tiller.codec import to_data
from tiller.context.token_counters import MessageTokens
from tiller.context.view import ContextView
from tiller.errors import AgentBusyError, InvalidHistoryError, UsageError
from tiller.events import AgentEnd, AgentEvent, RunStats
from tiller.loop.config import LoopConfig, loop_config
from tiller.loop.options import ContextOptions, Execution, Governance
from tiller.loop.run import Prompt, agent_loop, agent_loop_continue, as_prompt_messages
from tiller.messages import Message, TextContent, UserMessage
from tiller.models.base import Model, ModelSettings
from tiller.tools.base import Tool

log = logging.getLogger("tiller.agent")

Listener = Callable[[AgentEvent], None]


class Agent:
    """An agent: a model, tools, a system prompt, and a history that runs extend.

    For example:

        agent = Agent("local:smollm2", tools=[add], system_prompt="Be brief.")
        result = await agent.run("What is 2 + 3?")
        print(result.text)
    """

    def __init__(
        self,
        model: Model | str,
        *,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        system_prompt: str | None = None,
        settings: ModelSettings | None = None,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
        history: Sequence[Message] = (),
    ) -> None:
        # Everything a run needs but the messages, in one frozen value; each run is
        # this value with the run's overrides and queues (`dataclasses.replace`).
        self.options = loop_config(
            model,
            tools=tools,
            system_prompt=system_prompt,
            settings=settings,
            governance=governance,
            context=context,
            execution=execution,
        )
        self.messages: list[Message] = list(history)
        # Compaction blocks over `messages` and the conversation's token counts; the
        # history itself is never rewritten (see `tiller.context.view`).
        self.context_view = ContextView(tokens=MessageTokens.for_model(self.model))
        self.last_stats: RunStats | None = None
        self._steering: deque[Message] = deque()
        self._follow_ups: deque[Message] = deque()
        self._listeners: list[Listener] = []
        self._sink = _Sink(self)
        self._cancel: CancelToken | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0

    # ── state ───────────────────────────────────────────────────────────────

    @property
    def model(self) -> Model:
        return self.options.model

    @property
    def tools(self) -> Sequence[Tool]:
        return self.options.tools

    # The option groups, each replaceable for later runs (`agent.execution = ...`).

    @property
    def governance(self) -> Governance:
        return self.options.governance

    @governance.setter
    def governance(self, value: Governance) -> None:
        self.options = replace(self.options, governance=value)

    @property
    def context(self) -> ContextOptions:
        return self.options.context

    @context.setter
    def context(self, value: ContextOptions) -> None:
        self.options = replace(self.options, context=value)

    @property
    def execution(self) -> Execution:
        return self.options.execution

    @execution.setter
    def execution(self, value: Execution) -> None:
        self.options = replace(self.options, execution=value)

    @property
    def is_running(self) -> bool:
        return self._cancel is not None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event of every run. Returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # ── running ─────────────────────────────────────────────────────────────

    async def run(
        self,
        prompt: Prompt,
        *,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
    ) -> RunResult:
        """Run the agent on `prompt` until the model stops; the history grows by the run.

        Model failures do not raise: they end the run with stop reason `error`
        (see `RunResult.error`, `RunResult.raise_for_error()`). Raises
        `AgentBusyError` if a run is already going and `UsageError` for an empty prompt.
        `governance`, `context` and `execution` replace the agent's own group for
        this run only (`dataclasses.replace(agent.options.execution, limits=...)`
        changes one option of a group).
        """
        prompts = as_prompt_messages(prompt)
        return await self._execute(prompts, self._run_options(governance, context, execution))

    async def resume(
        self,
        *,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
    ) -> RunResult:
        """Continue from the history as it is (after tool results or a user message)."""
        return await self._execute(None, self._run_options(governance, context, execution))

    def run_sync(
        self,
        prompt: Prompt,
        *,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
    ) -> RunResult:
        """Blocking `run`, for scripts. Not for use inside a running event loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            run = self.run(prompt, governance=governance, context=context, execution=execution)
            return asyncio.run(run)
        raise UsageError("run_sync() was called inside a running event loop; use `await run()`")

    async def stream(
        self,
        prompt: Prompt,
        *,
        governance: Governance | None = None,
        context: ContextOptions | None = None,
        execution: Execution | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        """Run on `prompt`, yielding each event as it happens (ending with `agent_end`).

        Leaving the iteration early aborts the run: at once inside
        `contextlib.aclosing(agent.stream(...))`, else when the iterator is collected.
        """
        prompts = as_prompt_messages(prompt)
        options = self._run_options(governance, context, execution)
        self._check_idle()
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        task = asyncio.ensure_future(self._execute(prompts, options))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            await task
        finally:
            unsubscribe()
            if not task.done():
                self.abort()
                await asyncio.wait([task])

    def _run_options(
        self,
        governance: Governance | None,
        context: ContextOptions | None,
        execution: Execution | None,
    ) -> LoopConfig:
        options = self.options
        return replace(
            options,
            governance=options.governance if governance is None else governance,
            context=options.context if context is None else context,
            execution=options.execution if execution is None else execution,
            get_steering_messages=_drain(self._steering),
            get_follow_up_messages=_drain(self._follow_ups),
        )

    async def _execute(self, prompts: list[Message] | None, config: LoopConfig) -> RunResult:
        self._check_idle()
        cancel = self._cancel = CancelToken()
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        new: list[Message] = []
        try:
            if prompts is None:
                new = await agent_loop_continue(
                    self.messages, config, self._sink, cancel, self.context_view
                )
            else:
                new = await agent_loop(
                    prompts, self.messages, config, self._sink, cancel, self.context_view
                )
        finally:
            self._cancel = None
            self._loop = None
        stats = self.last_stats or RunStats()
        return RunResult(new, stats)

    def _check_idle(self) -> None:
        if self._cancel is not None:
            raise AgentBusyError(
                "this agent is already running; await the current run first, "
                "or use steer()/follow_up() to add to it"
            )

    def _dispatch(self, event: AgentEvent) -> None:
        # A sub-agent's events pass through here too (with a parent_loop_id): only the
        # agent's own `agent_end` carries its run's messages.
        if isinstance(event, AgentEnd) and event.parent_loop_id is None:
            self.messages.extend(event.messages)
            self.last_stats = event.stats
        if not self._listeners:
            return
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("an event listener failed on %s; the run goes on", event.type)

    # ── steering ────────────────────────────────────────────────────────────

    def steer(self, message: str | Message) -> None:
        """Interrupt: remaining tool calls are skipped and `message` goes in before the next
        model call. Queued until the next run if none is going."""
        self._steering.append(_as_message(message))

    def follow_up(self, message: str | Message) -> None:
        """Queue `message` for when the current run would otherwise stop."""
        self._follow_ups.append(_as_message(message))

    def clear_queued(self) -> list[Message]:
        """Drop steering and follow-up messages not yet taken; returns what was dropped."""
        dropped = [*self._steering, *self._follow_ups]
        self._steering.clear()
        self._follow_ups.clear()
        return dropped

    def abort(self) -> None:
        """Cancel the current run (safe from any thread). It ends with stop reason `aborted`."""
        cancel, loop = self._cancel, self._loop
        if cancel is None or loop is None:
            return
        if threading.get_ident() != self._loop_thread:
            loop.call_soon_threadsafe(cancel.cancel, "aborted")
        else:
            cancel.cancel("aborted")

    # ── saving and restoring ────────────────────────────────────────────────

    def to_json(self) -> str:
        """The history and its compaction blocks as JSON text (see `save`)."""
        return json.dumps(
            {
                "format": HISTORY_FORMAT,
                "messages": to_data(self.messages),
                "compactions": self.context_view.to_data(self.messages),
            },
            ensure_ascii=False,
        )

    def load_json(self, text: str) -> None:
        """Replace the history (and its compaction blocks) with one saved by `to_json`/`save`.

        Nothing changes unless the whole saved state is valid: anything else is an
        `InvalidHistoryError` saying what is wrong.
        """
        self._check_idle()
        messages, view = parse_saved(text)
        view.tokens = MessageTokens.for_model(self.model)
        self.messages = messages
        self.context_view = view

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the history to `path` atomically (a crash never leaves half a file).

        An existing file keeps its permissions; a temporary file left by a crashed save
        is removed by the next save. Errors name `path`.
        """
        save_text_atomically(Path(path), self.to_json())

    def load(self, path: str | os.PathLike[str]) -> None:
        """Load a history saved by `save`; `InvalidHistoryError` if the file is not one."""
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidHistoryError(
                f"the saved history is not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
        self.load_json(text)


class _Sink:
    """The event sink of an agent's runs: its `_dispatch`, and whether anyone listens
    (while no one does, a run builds no events but `agent_end`)."""

    __slots__ = ("_agent", "listening")

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        # The number of subscribers, as the loop asks before each event: true while any.
        self.listening: Callable[[], int] = agent._listeners.__len__

    def __call__(self, event: AgentEvent) -> None:
        self._agent._dispatch(event)


def _as_message(message: str | Message) -> Message:
    if isinstance(message, str):
        return UserMessage([TextContent(message)])
    return message


def _drain(queue: deque[Message]) -> Callable[[], list[Message]]:
    def drain() -> list[Message]:
        if not queue:
            return []
        items = list(queue)
        queue.clear()
        return items

    return drain
