"""Asking the user before a tool changes files or acts outside the process.

`ToolApproval` is the agent's `before_tool_execution` hook in `tiller run` and
`tiller chat`. A tool that only reads runs as usual. A tool that writes locally or
acts externally (undeclared tools count as acting externally) runs only when the
user allows it: asked each time on a terminal, with the tool's dry-run (a diff) or
its command shown; allowed at once with `--yes`; denied with `--read-only`, or when
no one can be asked (`--json`, input or output not a terminal). A denied call is an
error result the model reads, naming the reason; the tool does not run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Console
from rich.markup import escape

from tiller.errors import ConfigError
from tiller.loop.hooks import BeforeVerdict, Deny
from tiller.tools.base import Tool
from tiller.tools.effects import DryRunnable, ToolEffect, effect_of

ApprovalMode = Literal["ask", "yes", "deny"]
PREVIEW_LINES = 40


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """A call waiting for the user's answer."""

    tool_name: str
    effect: ToolEffect
    preview: str  # what it would do: a diff, a command, or its arguments

    @property
    def question(self) -> str:
        return f"allow {self.tool_name} ({self.effect.phrase})? [y/N] "


Ask = Callable[[ToolRequest], Awaitable[bool]]


def approval_mode(*, yes: bool, read_only: bool) -> ApprovalMode:
    if yes and read_only:
        raise ConfigError("--yes allows what --read-only denies: give one of them")
    return "yes" if yes else "deny" if read_only else "ask"


class ToolApproval:
    """A `before_tool_execution` hook: allows reading tools, asks (or decides) for others.

    `tools` is read at each call, so tools added later (MCP servers) are covered.
    `ask` is None when no one can be asked; `cannot_ask` then says why, to the model.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        mode: ApprovalMode,
        ask: Ask | None,
        *,
        cannot_ask: str = "no one can be asked here",
    ) -> None:
        self.tools = tools
        self.mode = mode
        self.ask = ask
        self.cannot_ask = cannot_ask

    async def __call__(self, name: str, call_id: str, arguments: dict[str, Any]) -> BeforeVerdict:
        tool = next((t for t in self.tools if t.name == name), None)
        if tool is None:
            return None  # the loop answers an unknown tool itself
        effect = effect_of(tool)
        if effect is ToolEffect.READ or self.mode == "yes":
            return None
        if self.mode == "deny":
            return Deny(
                f"{name!r} {effect.phrase}, and --read-only denies tools that change files "
                "or act externally"
            )
        if self.ask is None:
            return Deny(
                f"{name!r} {effect.phrase} and needs the user's consent, but {self.cannot_ask}; "
                "the user can rerun with --yes to allow such calls"
            )
        request = ToolRequest(name, effect, await preview(tool, arguments))
        if await self.ask(request):
            return None
        return Deny(f"the user did not allow this {name!r} call")


async def preview(tool: Tool, arguments: dict[str, Any]) -> str:
    """What the call would do: the tool's dry run, else its command, else its arguments."""
    if isinstance(tool, DryRunnable):
        try:
            result = await tool.dry_run(arguments)
        except Exception as exc:
            return f"(the call would fail: {exc})"
        return _cut(str(result.text))
    command = arguments.get("command")
    if isinstance(command, str):
        return _cut(f"$ {command}")
    return _cut(json.dumps(arguments, indent=2, ensure_ascii=False))


def _cut(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= PREVIEW_LINES:
        return text
    rest = len(lines) - PREVIEW_LINES
    return "\n".join([*lines[:PREVIEW_LINES], f"… {rest} more line{'s' if rest > 1 else ''}"])


def show_request(err: Console, request: ToolRequest) -> None:
    """The call and what it would do, on stderr, before the question."""
    err.print(
        f"[bold yellow]?[/] [cyan]{escape(request.tool_name)}[/] wants to run "
        f"({escape(request.effect.phrase)}):",
        highlight=False,
    )
    for line in request.preview.splitlines() or [""]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        err.print(f"  [{style}]{escape(line)}[/]", highlight=False, soft_wrap=True)


def is_yes(answer: str) -> bool:
    return answer.strip().lower() in ("y", "yes")


class TerminalAsk:
    """Asks on the terminal (`tiller run`): the question on stderr, the answer from stdin.

    The answer is read in a daemon thread, so an interrupted question never keeps the
    process alive. `before` runs first (the renderer makes room: no spinner, a new line).
    """

    def __init__(self, err: Console, before: Callable[[], None] = lambda: None) -> None:
        self.err = err
        self.before = before

    async def __call__(self, request: ToolRequest) -> bool:
        self.before()
        show_request(self.err, request)
        self.err.print(escape(request.question), end="", highlight=False)
        return is_yes(await _read_line())


async def _read_line() -> str:
    return await read_line_later()


def read_line_later() -> asyncio.Future[str]:
    """stdin's next line, read in a daemon thread (an abandoned question never keeps the
    process alive): a future of the running loop, "" at the end of input."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()

    def deliver(line: str) -> None:
        if not answer.done():
            answer.set_result(line)

    def read() -> None:
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):
            line = ""
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(deliver, line)

    threading.Thread(target=read, name="tiller-question", daemon=True).start()
    return answer
