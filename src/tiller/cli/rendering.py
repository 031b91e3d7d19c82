"""Showing a run's events in a terminal: the answer as it streams, tool calls as they run."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
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
from tiller.loop.tool_execution import HOOK_SKIPPED_TEXT
from tiller.messages import AssistantMessage, Message, UserMessage

# How the loop words the result of a call that a `before_tool_execution` hook denied.
_NOT_RUN = f"{HOOK_SKIPPED_TEXT}: "

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


def cost_text(cost_usd: float | None, unpriced_models: Sequence[str]) -> str:
    """`$0.0012`; `cost unknown for model X` when a model's price is unknown (never the
    sum of the known part); `n/a` when no price was involved at all."""
    if unpriced_models:
        names = ", ".join(dict.fromkeys(unpriced_models))
        return f"cost unknown for model{'s' if ',' in names else ''} {names}"
    return "n/a" if cost_usd is None else f"${cost_usd:.4f}"


def stop_note(stats: RunStats, messages: Sequence[Message]) -> str | None:
    """Why a run stopped, when it did not simply finish (errors are shown apart)."""
    reason = stats.stop_reason
    if reason == "length":
        return "answer cut at the token limit (length)"
    if reason == "refusal":
        last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
        why = " ".join((last.error_message or "").split()) if last is not None else ""
        return f"the model refused to answer{': ' + why if why else ''} (refusal)"
    if reason == "aborted":
        return "aborted"
    if stats.stopped_by is not None and reason != "error":
        return f"stopped early: {stats.stopped_by}"
    return None


def run_summary(stats: RunStats) -> str:
    """One line: turns, tokens, cost, time and how the run ended."""
    cost = cost_text(stats.cost_usd, stats.unpriced_models)
    turns = f"{stats.turns} turn" + ("" if stats.turns == 1 else "s")
    return (
        f"{turns} · {stats.usage.input_tokens} in / {stats.usage.output_tokens} out "
        f"tokens · {cost} · {stats.duration_ms / 1000:.2f}s · {stats.stop_reason}"
    )


class TerminalRenderer:
    """Answer text to stdout as it streams; tool calls, retries and the summary to stderr.

    When stdout is a terminal the answer streams as it is generated, is re-rendered as
    Markdown once complete, and a failed attempt's text is erased before the model is
    asked again. When stdout is not a terminal each reply is written once complete, and
    a failed attempt's text never is: stdout carries only the answer. When stderr is a
    terminal a spinner shows while the model thinks or a tool runs; otherwise stderr gets
    plain lines, one per tool call.
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
        self.live = out.is_terminal  # stream text as it comes (it can be erased)
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
                if event.attempt_failed:
                    self._discard_answer()
                else:
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
            note = stop_note(event.stats, event.messages)
            if note is not None:
                self.err.print(f"[yellow]stopped:[/] {escape(note)}", highlight=False)
            self.err.print(f"[dim]{escape(run_summary(event.stats))}[/]", highlight=False)

    def make_room(self) -> None:
        """Before something else writes to the terminal (a question): no spinner, a fresh
        line, and the answer so far left as it is."""
        self._hide_spinner()
        self._end_line()
        self.interrupted()

    def interrupted(self) -> None:
        """The user typed among the answer (a line of input): do not rewrite it."""
        if self._answer is not None:
            self._answer.disturb()

    # ── pieces ──────────────────────────────────────────────────────────────

    def _text(self, text: str) -> None:
        text = printable(text)
        if not text:
            return
        if self._answer is None:
            self._answer = StreamedAnswer()
        self._answer.add(text)
        if self.live:
            self._hide_spinner()
            self._write(text)

    def _message_start(self, event: MessageStart) -> None:
        message = event.message
        if isinstance(message, AssistantMessage):
            self._answer = None
        elif isinstance(message, UserMessage) and self._in_turn:
            # After the first turn has begun, a user message is steering or a queued message.
            self._note(f"[magenta]↳ you:[/] {escape(_short(printable(message.text), 200))}")

    def _write(self, text: str) -> None:
        self.out.print(text, end="", markup=False, highlight=False, emoji=False, soft_wrap=True)
        self._mid_line = not text.endswith("\n")

    def _finish_answer(self) -> None:
        answer, self._answer = self._answer, None
        if answer is None:
            return
        self._hide_spinner()
        if not self.live:
            self._write(answer.text)
        elif self.markdown and answer.replace_with_markdown(self.out):
            self._mid_line = False

    def _discard_answer(self) -> None:
        """A failed attempt that will be retried: its text is not the answer."""
        answer, self._answer = self._answer, None
        if answer is None or not self.live:
            return
        self._hide_spinner()
        if answer.erase(self.out):
            self._mid_line = False
        else:  # scrolled away or written among: it cannot be taken back
            self._note("[dim](the partial answer above failed; it is not the answer)[/]")

    def _tool_start(self, event: ToolExecutionStart) -> None:
        self._note(
            f"[cyan]→ {escape(event.tool_name)}[/]([dim]{escape(_short(event.arguments))}[/])"
        )
        self._running_tools[event.tool_call_id] = event.tool_name
        self._spin(f"running {event.tool_name}…")

    def _tool_end(self, event: ToolExecutionEnd) -> None:
        self._running_tools.pop(event.tool_call_id, None)
        mark = "[red]✗[/]" if event.is_error else "[green]✓[/]"
        text = printable(event.result.text)
        if event.is_error and text.startswith(_NOT_RUN):  # a refusal: shown whole
            summary = "not run: " + escape(" ".join(text.removeprefix(_NOT_RUN).split()))
        else:
            summary = escape(_short(text or "(no text)"))
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
        """A line on stderr, on a line of its own (long lines wrap where the terminal wraps
        them: text copied from it stays whole)."""
        self._end_line()
        if self._answer is not None:
            self._answer.disturb()
        self.err.print(markup, highlight=False, soft_wrap=True)

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
