"""Showing a run's events in a terminal: the answer as it streams, tool calls as they run."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from tiller.events import (
    AgentEnd,
    AgentEvent,
    InputRejected,
    LoopDetected,
    MessageUpdate,
    Retry,
    TextDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnStart,
)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalRenderer:
    """Answer text to stdout as it streams; tool calls, retries and the summary to stderr."""

    def __init__(self, out: Console, err: Console) -> None:
        self.out = out
        self.err = err
        self._mid_line = False

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, MessageUpdate) and isinstance(event.delta, TextDelta):
            self.out.print(event.delta.text, end="", markup=False, highlight=False, soft_wrap=True)
            self._mid_line = not event.delta.text.endswith("\n")
            return
        if isinstance(event, TurnStart | AgentEnd):
            self._end_line()
        if isinstance(event, ToolExecutionStart):
            self._end_line()
            self.err.print(
                f"[cyan]→ {escape(event.tool_name)}[/]([dim]{escape(_short(event.arguments))}[/])"
            )
        elif isinstance(event, ToolExecutionEnd):
            mark = "[red]✗[/]" if event.is_error else "[green]✓[/]"
            summary = escape(_short(event.result.text or "(no text)"))
            self.err.print(
                f"  {mark} {escape(event.tool_name)} [dim]{event.duration_ms:.0f} ms[/] {summary}"
            )
        elif isinstance(event, Retry):
            self.err.print(
                f"[yellow]retry {event.attempt}/{event.max_attempts} in {event.delay_s:.1f}s: "
                f"{escape(event.error_message)}[/]"
            )
        elif isinstance(event, InputRejected):
            self.err.print(f"[red]input rejected:[/] {escape(event.reason)}")
        elif isinstance(event, LoopDetected):
            self.err.print(f"[yellow]loop detected:[/] {escape(event.tool_name)} x{event.repeats}")
        elif isinstance(event, AgentEnd):
            s = event.stats
            cost = "n/a" if s.cost_usd is None else f"${s.cost_usd:.4f}"
            self.err.print(
                f"[dim]{s.turns} turns · {s.usage.input_tokens} in / {s.usage.output_tokens} out "
                f"tokens · {cost} · {s.duration_ms / 1000:.2f}s · {s.stop_reason}[/]"
            )

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.print()
            self._mid_line = False
