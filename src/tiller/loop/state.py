"""The state of one running loop, shared by its phases."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence

from tiller.cancellation import CancelToken
from tiller.context.token_counters import MessageTokens
from tiller.context.view import ContextView
from tiller.events import AgentEvent, RunStats
from tiller.loop.config import EventSink, LoopConfig
from tiller.loop.repetition import RepetitionGuard
from tiller.loop.reporting import LoopReporter
from tiller.messages import ExtensionMessage, Message
from tiller.models.base import ToolSpec
from tiller.tools.base import Tool

log = logging.getLogger("tiller.loop")


class RunAborted(Exception):
    """The run's cancel token fired; the history is already consistent."""


def _ignore(event: AgentEvent) -> None:
    return None


def _never() -> bool:
    return False


def _always() -> bool:
    return True


class RunState:
    __slots__ = (
        "_overhead",
        "_sink",
        "cancel",
        "config",
        "guard",
        "has_extensions",
        "listening",
        "loop_id",
        "messages",
        "new_messages",
        "overflow_budget",
        "parent_loop_id",
        "persisted",
        "reporter",
        "started",
        "stats",
        "tool_specs",
        "tools",
        "view",
    )

    def __init__(
        self,
        history: Sequence[Message],
        config: LoopConfig,
        sink: EventSink | None,
        cancel: CancelToken | None,
        view: ContextView | None = None,
    ) -> None:
        self.config = config
        # The conversation's compaction blocks and token counts; a fresh one when the
        # caller keeps none (its blocks then last for this run only).
        self.view = view or ContextView(tokens=MessageTokens.for_model(config.model))
        self._overhead: int | None = None
        self._sink = sink or _ignore
        # Whether an event emitted now would reach anyone. The loop builds its per-turn
        # and per-call events only then: with no sink, or a sink whose `listening()` says
        # no one listens (an `Agent` without subscribers), a run makes none of them
        # (`agent_end` always goes out). Called before each event, so kept cheap.
        self.listening: Callable[[], object] = (
            _never if sink is None else getattr(sink, "listening", _always)
        )
        self.cancel = cancel or CancelToken()
        self.loop_id = config.loop_id or os.urandom(8).hex()  # as random as uuid4().hex[:16]
        self.parent_loop_id = config.parent_loop_id
        self.messages: list[Message] = list(history)
        self.new_messages: list[Message] = []
        self.persisted = 0  # how many of new_messages `Execution.persist` was given
        self.stats = RunStats()
        self.started = time.perf_counter()
        self.tools: dict[str, Tool] = {t.name: t for t in config.tools}
        self.tool_specs = [
            ToolSpec(t.name, t.description, t.parameters, _declared_effect(t)) for t in config.tools
        ]
        repetition = config.execution.repetition
        self.guard = RepetitionGuard(repetition) if repetition else None
        self.overflow_budget: int | None = None
        self.reporter = LoopReporter(config, self.emit, self.send, self.loop_id)
        # Known once, then kept up to date, so no turn has to scan a long history.
        self.has_extensions = any(isinstance(m, ExtensionMessage) for m in self.messages)

    def emit(self, event: AgentEvent) -> None:
        event.loop_id = self.loop_id
        event.parent_loop_id = self.parent_loop_id
        self.send(event)

    def send(self, event: AgentEvent) -> None:
        """Give `event` to the sink as it is; a sink that raises is logged, never fatal."""
        try:
            self._sink(event)
        except Exception:
            log.exception("an event listener failed on %s; the run goes on", event.type)

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.new_messages.append(message)
        if isinstance(message, ExtensionMessage):
            self.has_extensions = True

    async def persist(self) -> None:
        """Give `Execution.persist` the messages added since it was last given any."""
        persist = self.config.execution.persist
        if persist is None or self.persisted == len(self.new_messages):
            return
        await persist(self.new_messages[self.persisted :])
        self.persisted = len(self.new_messages)

    def request_overhead_tokens(self, count: Callable[[str], int]) -> int:
        """Tokens of what every request sends besides messages: system prompt and tools."""
        if self._overhead is None:
            specs = json.dumps([[t.name, t.description, t.parameters] for t in self.tool_specs])
            self._overhead = count(self.config.system_prompt or "") + count(specs)
        return self._overhead

    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started


def _declared_effect(tool: Tool) -> str | None:
    effect = getattr(tool, "effect", None)
    return None if effect is None else str(effect)
