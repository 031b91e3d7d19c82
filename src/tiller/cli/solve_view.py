"""What `tiller solve` shows while a solve runs, and how it asks for approvals.

On a terminal, a live goal tree (Rich `Live`, on stderr): every goal with its
status, the current step, and what the solve has used; it is redrawn from the
saved state after each of the solver's events. Elsewhere (a pipe, a log, `--json`)
each event is one line on stderr instead.

When the solve waits for an approval (a halting checkpoint, a step that needs a
person) and a person can be asked here (stdin and stderr are terminals, no
`--json`), the question is asked inline: approve, reject, or show the details
first, with an optional comment; the decision goes to the store, which wakes the
solve. Otherwise the approval's id and the commands that decide it are printed,
and the solve waits for a decision from another process.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from tiller.events import (
    ApprovalDecided,
    CheckpointRequested,
    Escalation,
    Event,
    GoalSelected,
    ModelLoading,
    PlanCreated,
    PlanSummary,
    SolveEnd,
    SolveStart,
    StepFinished,
    StepStarted,
)
from tiller.store import ApprovalAlreadyDecided, Store

MARKS = {
    "pending": "[dim]·[/]",
    "active": "[cyan]▶[/]",
    "done": "[green]✓[/]",
    "failed": "[red]✗[/]",
    "waiting": "[yellow]?[/]",
}
REFRESH_S = 0.25
DECIDED_BY = "tiller solve (terminal)"


class LineSource:
    """Lines from stdin, each read in a daemon thread (an abandoned question never keeps
    the process alive); a read still pending when its question was abandoned delivers
    the next question's answer, so no line is lost to a forgotten thread."""

    def __init__(self) -> None:
        self._pending: asyncio.Future[str] | None = None

    async def read(self) -> str:
        if self._pending is None or self._pending.done():
            self._pending = self._start()
        pending = self._pending
        line = await asyncio.shield(pending)
        self._pending = None
        return line

    @staticmethod
    def _start() -> asyncio.Future[str]:
        from tiller.cli.approval import read_line_later

        return read_line_later()


class SolveView:
    """The listener of a solve's events: draws its progress and asks for its approvals."""

    def __init__(
        self,
        store: Store,
        err: Console,
        *,
        live: bool,
        ask: bool,
        store_options: Sequence[str] = (),
    ) -> None:
        self.store = store
        self.err = err
        self.ask = ask
        self.store_options = list(store_options)  # --database / --data-dir, for commands
        self.solve_id: str | None = None
        self.status = "starting"
        self.activity = "proposing goals"
        self.waiting: str | None = None
        self._state: dict[str, Any] | None = None
        self._dirty = asyncio.Event()
        self._live = _live(err) if live else None
        self._lines = LineSource()
        self._tasks: set[asyncio.Task[None]] = set()
        self._refresher: asyncio.Task[None] | None = None

    # ── lifetime ────────────────────────────────────────────────────────────

    async def __aenter__(self) -> SolveView:
        if self._live is not None:
            self._live.start()
            self._live.update(self._render(), refresh=True)
            self._refresher = asyncio.create_task(self._refresh())
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in [*self._tasks, *([self._refresher] if self._refresher else [])]:
            task.cancel()
        for task in [*self._tasks, *([self._refresher] if self._refresher else [])]:
            with suppress(asyncio.CancelledError, Exception):
                await task
        if self._live is not None:
            with suppress(Exception):
                await self._load()
            self.waiting = None
            self._live.update(self._render(), refresh=True)
            self._live.stop()

    def started(self, solve_id: str, *, announce: bool = True) -> None:
        """The solve's id, as soon as its record exists (announced on a new solve)."""
        self.solve_id = solve_id
        self.status = "running"
        if announce:
            self._note(f"solve {solve_id}")
        self._dirty.set()

    # ── events ──────────────────────────────────────────────────────────────

    def __call__(self, event: Event) -> None:
        match event:
            case SolveStart():
                self.started(event.solve_id, announce=not event.resumed)
            case ModelLoading():
                self.activity = f"loading {event.model}"
                self._note(f"loading the model {event.model}…")
            case GoalSelected():
                self.activity = f"goal {event.goal_id}: {event.title}"
                self._note(f"goal {event.goal_id}: {event.title}")
            case PlanCreated():
                steps = event.plan.get("steps") or []
                self.activity = f"goal {event.goal_id}: planned {len(steps)} step(s)"
                self._note(f"  plan for {event.goal_id}: {len(steps)} step(s)")
            case StepStarted():
                tool = f" [{event.tool}]" if event.tool else ""
                self.activity = f"goal {event.goal_id}, step {event.step_index}{tool}: " + (
                    event.description
                )
                self._note(f"  step {event.step_index}{tool}: {event.description}")
            case StepFinished():
                why = f" ({event.error})" if event.error else ""
                self._note(f"  step {event.step_index} {event.status}{why}")
            case PlanSummary():
                self._note(f"  {event.text}", style="dim")
            case CheckpointRequested():
                self._checkpoint(event)
            case ApprovalDecided():
                self.waiting = None
                comment = f": {event.comment}" if event.comment else ""
                self._note(f"  approval {event.approval_id} {event.decision}{comment}")
            case Escalation():
                self._note(f"escalation: {event.reason} {event.detail}".rstrip(), style="yellow")
            case SolveEnd():
                self.status = event.status
                self.activity = f"ended: {event.status}"
            case _:
                return
        self._dirty.set()

    def _checkpoint(self, event: CheckpointRequested) -> None:
        if event.approval_id is None:
            self._note(f"  checkpoint {event.checkpoint} ({event.mode})")
            return
        self.waiting = event.approval_id
        if self.ask:
            task = asyncio.get_running_loop().create_task(self._ask(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        where = " ".join(shlex.quote(o) for o in self.store_options)
        where = f" {where}" if where else ""
        lines = [
            f"waiting for approval {event.approval_id} ({_what(event)}); decide it with",
            f"  tiller approvals approve {event.approval_id}{where} [--comment TEXT]",
            f"  tiller approvals reject {event.approval_id}{where} [--comment TEXT]",
            f"  (tiller approvals show {event.approval_id}{where} shows the details)",
        ]
        self._print("\n".join(lines), style="yellow")

    # ── asking on the terminal ──────────────────────────────────────────────

    async def _ask(self, event: CheckpointRequested) -> None:
        approval_id = event.approval_id
        assert approval_id is not None
        asking = asyncio.create_task(self._question(event))
        elsewhere = asyncio.create_task(self.store.approvals.wait(approval_id))
        try:
            done, _ = await asyncio.wait({asking, elsewhere}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (asking, elsewhere):
                task.cancel()
        if asking not in done:
            decided = elsewhere.result()
            self._print(f"approval {approval_id} was {decided.status.value} elsewhere")
        self._resume_live()

    async def _question(self, event: CheckpointRequested) -> None:
        approval_id = event.approval_id
        assert approval_id is not None
        if self._live is not None and self._live.is_started:
            with suppress(Exception):
                await self._load()
            self._live.update(self._render(), refresh=True)
        self._pause_live()
        self._print(f"[bold yellow]?[/] the solve asks for approval: {escape(_what(event))}")
        for line in _summary(event.context):
            self.err.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
        while True:
            self.err.print(escape("approve, reject or show details? [a/r/d] "), end="")
            answer = (await self._lines.read()).strip().lower()
            if answer in ("d", "details", "show"):
                shown = json.dumps(event.context, indent=2, ensure_ascii=False, default=str)
                self.err.print(escape(shown), highlight=False, soft_wrap=True)
                continue
            if answer in ("a", "approve", "y", "yes", "r", "reject", "n", "no"):
                break
            if answer == "" and not sys.stdin.isatty():
                return  # the input ended: leave the decision to someone else
        approved = answer in ("a", "approve", "y", "yes")
        self.err.print("comment (optional): ", end="")
        comment = (await self._lines.read()).strip() or None
        try:
            await self.store.approvals.decide(approval_id, approved, comment, None, DECIDED_BY)
        except ApprovalAlreadyDecided as exc:
            self._print(str(exc), style="yellow")

    def _pause_live(self) -> None:
        if self._live is not None and self._live.is_started:
            self._live.stop()

    def _resume_live(self) -> None:
        if self._live is not None and not self._live.is_started:
            # A new Live: the stopped one would draw over the lines of the question.
            self._live = _live(self.err)
            self._live.start()
            self._live.update(self._render(), refresh=True)
            self._dirty.set()

    # ── drawing ─────────────────────────────────────────────────────────────

    async def _refresh(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            with suppress(Exception):  # a view never stops the solve
                await self._load()
            if self._live is not None and self._live.is_started:
                self._live.update(self._render(), refresh=True)
            await asyncio.sleep(REFRESH_S)

    async def _load(self) -> None:
        if self.solve_id is not None:
            record = await self.store.solves.load(self.solve_id)
            self._state = record.state

    def _render(self) -> RenderableType:
        title = f"[bold]solve {escape(self.solve_id or '…')}[/] {escape(self.status)}"
        tree = Tree(title, guide_style="dim")
        state = self._state or {}
        goals = state.get("tree") or []
        nodes: dict[str, Tree] = {}
        for goal in goals:
            if not isinstance(goal, dict):
                continue
            status = str(goal.get("status", "pending"))
            mark = MARKS.get(status, "·")
            where = escape(f"({goal.get('id')}, {status})")
            label = f"{mark} {escape(str(goal.get('title')))} [dim]{where}[/]"
            parent = nodes.get(str(goal.get("parent"))) if goal.get("parent") else None
            nodes[str(goal.get("id"))] = (parent or tree).add(label)
        parts: list[RenderableType] = [tree, Text(self.activity, style="cyan")]
        usage = state.get("usage") or {}
        if usage:
            parts.append(Text(_usage_line(usage), style="dim"))
        if self.waiting:
            parts.append(Text(f"waiting for approval {self.waiting}", style="yellow"))
        return Group(*parts)

    def _note(self, text: str, *, style: str | None = None) -> None:
        """One line of progress where there is no live view."""
        if self._live is None:
            self._print(escape(text), style=style)

    def _print(self, markup: str, *, style: str | None = None) -> None:
        text = f"[{style}]{markup}[/]" if style else markup
        if self._live is not None and self._live.is_started:
            self._live.console.print(text, highlight=False, soft_wrap=True)
        else:
            self.err.print(text, highlight=False, soft_wrap=True)


def _live(err: Console) -> Live:
    return Live(console=err, auto_refresh=False, transient=False)


def _what(event: CheckpointRequested) -> str:
    reasons = event.context.get("reasons")
    if isinstance(reasons, list) and reasons:
        return f"{event.checkpoint}: " + "; ".join(str(r) for r in reasons)
    checkpoint = event.context.get("checkpoint")
    name = checkpoint.get("name") if isinstance(checkpoint, dict) else None
    return f"checkpoint {event.checkpoint}" + (f" {name!r}" if name else "")


def _summary(context: dict[str, Any]) -> list[str]:
    """The lines a person needs first: the goal, the step, the plan's length."""
    lines = []
    goal = context.get("goal") or context.get("current_goal")
    if isinstance(goal, dict):
        lines.append(f"goal {goal.get('id')}: {goal.get('title')}")
    step = context.get("step")
    if isinstance(step, dict):
        tool = f" [{step.get('tool')}]" if step.get("tool") else ""
        lines.append(f"step {step.get('index')}{tool}: {step.get('description')}")
        if step.get("arguments"):
            arguments = json.dumps(step["arguments"], ensure_ascii=False, default=str)
            lines.append(f"arguments: {arguments[:300]}")
    plan = context.get("plan")
    if isinstance(plan, dict) and not isinstance(step, dict):
        for planned in plan.get("steps") or []:
            if isinstance(planned, dict):
                lines.append(f"- {planned.get('description')}")
    return lines


def _usage_line(usage: dict[str, Any]) -> str:
    tokens = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
    cost = f"${float(usage.get('cost_usd', 0.0)):.4f}"
    cost += " or more" if usage.get("unpriced") else ""
    return (
        f"{usage.get('iterations', 0)} iterations · {usage.get('steps', 0)} steps · "
        f"{tokens} tokens · {cost} · {float(usage.get('elapsed_s', 0.0)):.1f} s"
    )
