"""Showing a run's events in a terminal: the answer as it streams, tool calls as they run."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from rich.console import Console
from rich.markup import escape

from tiller.cli.markdown_replay import StreamedAnswer
from tiller.cli.spinner import ActivitySpinner
from tiller.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    CircuitStateChanged,
    InputRejected,
    LoopDetected,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ModelLoading,
    Retry,
    RunStats,
    TextDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnStart,
)
from tiller.messages import AssistantMessage, UserMessage

# Control characters a model could use to move the cursor or rewrite the screen; newlines
# and tabs stay.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def circuit_note(event: CircuitStateChanged) -> str:
    """A circuit breaker's change of state, as one line of markup."""
    where = escape(f"{event.provider} at {event.endpoint}")
    if event.new_state == "open":
        until = ""
        if event.retry_at is not None:
            until = f" until {time.strftime('%H:%M:%S', time.localtime(event.retry_at))}"
        return f"[yellow]circuit open: {where} is failing; calls to it fail fast{until}[/]"
    if event.new_state == "half_open":
        return f"[dim]circuit half-open: trying {where} again[/]"
    return f"[green]circuit closed: {where} answers again[/]"


def printable(text: str) -> str:
    """`text` without terminal control characters (escape sequences lose their ESC)."""
    return _CONTROL.sub("", text)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_summary(stats: RunStats) -> str:
    """One line: turns, tokens, cost, time and how the run ended."""
    cost = "n/a" if stats.cost_usd is None else f"${stats.cost_usd:.4f}"
    turns = f"{stats.turns} turn" + ("" if stats.turns == 1 else "s")
    return (
        f"{turns} · {stats.usage.input_tokens} in / {stats.usage.output_tokens} out "
        f"tokens · {cost} · {stats.duration_ms / 1000:.2f}s · {stats.stop_reason}"
    )


class TerminalRenderer:
    """Answer text to stdout as it streams; tool calls, retries and the summary to stderr.

    When stdout is a terminal each answer is re-rendered as Markdown once complete; when
    stderr is a terminal a spinner shows while the model thinks or a tool runs. When they
    are not terminals the output is plain: the streamed text and one line per tool call.
    """

    def __init__(
        self,
        out: Console,
        err: Console,
        *,
        markdown: bool | None = None,
        spinner: bool | None = None,
    ) -> None:
        self.out = out
        self.err = err
        self.markdown = out.is_terminal if markdown is None else markdown
        show_spinner = err.is_terminal if spinner is None else spinner
        self.spinner = ActivitySpinner(err) if show_spinner else None
        self._answer: StreamedAnswer | None = None
        self._mid_line = False
        self._in_turn = False
        self._running_tools: dict[str, str] = {}

    def __call__(self, event: AgentEvent) -> None:
        if event.parent_loop_id is not None:
            self._nested(event)
            return
        if isinstance(event, MessageUpdate):
            if isinstance(event.delta, TextDelta):
                self._text(event.delta.text)
            return
        if isinstance(event, AgentStart):
            self._in_turn = False
            self._spin("thinking…")
        elif isinstance(event, TurnStart):
            self._end_line()
            self._in_turn = True
            self._spin("thinking…")
        elif isinstance(event, MessageStart):
            self._message_start(event)
        elif isinstance(event, MessageEnd):
            if isinstance(event.message, AssistantMessage):
                self._finish_answer()
        elif isinstance(event, ToolExecutionStart):
            self._tool_start(event)
        elif isinstance(event, ToolExecutionEnd):
            self._tool_end(event)
        elif isinstance(event, Retry):
            self._note(
                f"[yellow]retry {event.attempt}/{event.max_attempts} in {event.delay_s:.1f}s: "
                f"{escape(event.error_message)}[/]"
            )
        elif isinstance(event, ModelLoading):
            self._spin(f"loading {event.model}…")
        elif isinstance(event, CircuitStateChanged):
            self._note(circuit_note(event))
        elif isinstance(event, InputRejected):
            self._note(f"[red]input rejected:[/] {escape(event.reason)}")
        elif isinstance(event, LoopDetected):
            self._note(f"[yellow]loop detected:[/] {escape(event.tool_name)} x{event.repeats}")
        elif isinstance(event, AgentEnd):
            self._hide_spinner()
            self._finish_answer()
            self._end_line()
            self.err.print(f"[dim]{escape(run_summary(event.stats))}[/]", highlight=False)

    def interrupted(self) -> None:
        """The user typed among the answer (a line of input): do not rewrite it."""
        if self._answer is not None:
            self._answer.disturb()

    # ── pieces ──────────────────────────────────────────────────────────────

    def _text(self, text: str) -> None:
        text = printable(text)
        if not text:
            return
        self._hide_spinner()
        if self._answer is None:
            self._answer = StreamedAnswer()
        self._answer.add(text)
        self.out.print(text, end="", markup=False, highlight=False, emoji=False, soft_wrap=True)
        self._mid_line = not text.endswith("\n")

    def _message_start(self, event: MessageStart) -> None:
        message = event.message
        if isinstance(message, AssistantMessage):
            self._answer = None
        elif isinstance(message, UserMessage) and self._in_turn:
            # After the first turn has begun, a user message is steering or a queued message.
            self._note(f"[magenta]↳ you:[/] {escape(_short(printable(message.text), 200))}")

    def _finish_answer(self) -> None:
        answer, self._answer = self._answer, None
        if answer is None:
            return
        self._hide_spinner()
        if self.markdown and answer.replace_with_markdown(self.out):
            self._mid_line = False

    def _tool_start(self, event: ToolExecutionStart) -> None:
        self._note(
            f"[cyan]→ {escape(event.tool_name)}[/]([dim]{escape(_short(event.arguments))}[/])"
        )
        self._running_tools[event.tool_call_id] = event.tool_name
        self._spin(f"running {event.tool_name}…")

    def _tool_end(self, event: ToolExecutionEnd) -> None:
        self._running_tools.pop(event.tool_call_id, None)
        mark = "[red]✗[/]" if event.is_error else "[green]✓[/]"
        summary = escape(_short(printable(event.result.text) or "(no text)"))
        self._note(
            f"  {mark} {escape(event.tool_name)} [dim]{event.duration_ms:.0f} ms[/] {summary}"
        )
        if self._running_tools:
            self._spin(f"running {', '.join(sorted(set(self._running_tools.values())))}…")
        else:
            self._hide_spinner()

    def _nested(self, event: AgentEvent) -> None:
        """A sub-agent's work: its tool calls, indented; its text is the tool's result."""
        if isinstance(event, ToolExecutionStart):
            self._note(
                f"    [dim cyan]↳ {escape(event.tool_name)}[/]"
                f"([dim]{escape(_short(event.arguments, 60))}[/])"
            )
        elif isinstance(event, ToolExecutionEnd):
            mark = "[red]✗[/]" if event.is_error else "[green]✓[/]"
            self._note(f"      {mark} [dim]{escape(event.tool_name)} {event.duration_ms:.0f} ms[/]")

    def _note(self, markup: str) -> None:
        """A line on stderr, on a line of its own."""
        self._end_line()
        if self._answer is not None:
            self._answer.disturb()
        self.err.print(markup, highlight=False)

    def _spin(self, label: str) -> None:
        if self.spinner is not None:
            self._end_line()
            self.spinner.show(label)

    def _hide_spinner(self) -> None:
        if self.spinner is not None:
            self.spinner.hide()

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.print()
            self._mid_line = False
