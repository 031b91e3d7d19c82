"""`shell`: run a command in the workspace, with a timeout, capped and streamed output.

The command runs under bash (or sh) with the workspace as its directory, no
stdin, stdout and stderr merged, in a new session (its own process group) and
an environment without API keys, tokens and other secrets. Output streams to
`tool_execution_update` events (the new text since the last update, at most
every `update_interval_s`); the result keeps the head and tail of it around
seed 001's marker. When the command ends, times out or the call is cancelled,
its whole process group is killed, and so is any process that left the group
but still carries this run's marker in its environment: nothing is left running.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from typing import Annotated

from pydantic import Field

from tiller.messages import TextContent, ToolResult
from tiller.tools.base import ToolContext
from tiller.tools.builtin.output_capture import HeadTailCapture
from tiller.tools.builtin.shell_environment import RUN_MARKER, scrubbed_environment
from tiller.tools.effects import ToolEffect
from tiller.tools.function_tool import FunctionTool
from tiller.tools.workspace import Workspace

READ_CHUNK = 65536


class ShellTool(FunctionTool):
    def __init__(
        self,
        workspace: Workspace,
        *,
        default_timeout_s: float = 60.0,
        max_timeout_s: float = 600.0,
        max_output_lines: int = 200,
        max_line_chars: int = 2000,
        update_interval_s: float = 0.1,
        kill_grace_s: float = 2.0,
        env: Mapping[str, str] | None = None,
        shell: str | None = None,
    ) -> None:
        self.workspace = workspace
        self.default_timeout_s = default_timeout_s
        self.max_timeout_s = max_timeout_s
        self.max_output_lines = max_output_lines
        self.max_line_chars = max_line_chars
        self.update_interval_s = update_interval_s
        self.kill_grace_s = kill_grace_s
        self.extra_env = dict(env or {})
        self.shell = shell or shutil.which("bash") or "/bin/sh"
        super().__init__(self.shell_command, name="shell", effect=ToolEffect.EXTERNAL)

    async def shell_command(
        self,
        command: Annotated[str, Field(description="The shell command line to run.")],
        ctx: ToolContext,
        timeout_s: Annotated[
            float | None,
            Field(gt=0, description="Seconds before the command is killed (default 60)."),
        ] = None,
    ) -> ToolResult:
        """Run a shell command in the workspace directory and return its output (stdout and
        stderr together) and exit code. Long output keeps its first and last lines. No input
        is available: do not run interactive programs."""
        timeout = min(timeout_s or self.default_timeout_s, self.max_timeout_s)
        marker = secrets.token_hex(8)
        env = scrubbed_environment(os.environ, self.extra_env)
        env[RUN_MARKER] = marker
        capture = HeadTailCapture(self.max_output_lines, self.max_line_chars)
        streamer = _UpdateStreamer(ctx, self.update_interval_s)
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        transport, command_io = await loop.subprocess_exec(
            lambda: _CommandProtocol(loop, capture, streamer),
            self.shell,
            "-c",
            command,
            cwd=self.workspace.root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        pgid = transport.get_pid()
        outcome = "cancelled"
        try:
            outcome = await _wait(command_io.exited, timeout, ctx)
            if outcome == "timeout":
                _signal_group(pgid, signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(command_io.exited), self.kill_grace_s)
        finally:
            # Whatever happened (also on task cancellation): nothing of it may outlive us.
            _signal_group(pgid, signal.SIGKILL)
            _kill_marked(marker)
            await _finish(transport, command_io)
            streamer.close()
        return self._result(transport.get_returncode(), outcome, timeout, capture, started)

    def _result(
        self,
        code: int | None,
        outcome: str,
        timeout: float,
        capture: HeadTailCapture,
        started: float,
    ) -> ToolResult:
        output = capture.text().rstrip("\n") or "(no output)"
        if outcome == "timeout":
            footer = (
                f"[timed out after {timeout:g}s: the command and its child processes were "
                "killed. Run it with a larger timeout_s, or in smaller steps.]"
            )
        elif outcome == "cancelled":
            footer = "[cancelled: the command and its child processes were killed.]"
        elif code is not None and code < 0:
            footer = f"[killed by signal {-code}]"
        else:
            footer = f"[exit code {code}]"
        details = {
            "exit_code": code,
            "timed_out": outcome == "timeout",
            "cancelled": outcome == "cancelled",
            "output_lines": capture.lines_seen,
            "truncated": capture.truncated,
            "duration_s": round(time.monotonic() - started, 3),
        }
        is_error = outcome != "exited" or code != 0
        return ToolResult([TextContent(f"{output}\n{footer}")], details, is_error=is_error)


class _CommandProtocol(asyncio.SubprocessProtocol):
    """Feeds the command's output to the capture and the streamer; notes exit and EOF.

    The exit is seen when the process exits, not when its output pipe closes: a
    background child may hold the pipe open long after the command itself ended.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        capture: HeadTailCapture,
        streamer: _UpdateStreamer,
    ) -> None:
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_closed: asyncio.Future[None] = loop.create_future()
        self._capture = capture
        self._streamer = streamer
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        text = self._decoder.decode(data.encode() if isinstance(data, str) else data)
        self._capture.feed(text)
        self._streamer.add(text)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.output_closed.done():
            rest = self._decoder.decode(b"", final=True)
            self._capture.feed(rest)
            self._streamer.add(rest)
            self._streamer.flush()
            self.output_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


async def _wait(exited: asyncio.Future[None], limit_s: float, ctx: ToolContext) -> str:
    """How the wait ended: `exited`, `timeout`, or `cancelled` (the call's token fired)."""
    cancelled = asyncio.ensure_future(ctx.cancel.wait())
    try:
        done, _ = await asyncio.wait(
            {exited, cancelled}, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        cancelled.cancel()
    if exited in done:
        return "exited"
    return "cancelled" if cancelled in done else "timeout"


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # The group id is the leader's pid; while any member lives, the id is not reused.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _kill_marked(marker: str) -> None:
    """SIGKILL processes that left the group (`setsid`, double fork) but carry our marker."""
    needle = f"{RUN_MARKER}={marker}".encode()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return  # no procfs: the process group is all we can reach
    own = os.getpid()
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                found = needle in f.read().split(b"\0")
        except OSError:
            continue
        if found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry), signal.SIGKILL)


async def _finish(transport: asyncio.SubprocessTransport, command_io: _CommandProtocol) -> None:
    """Let the output reach its end and the leader be reaped (bounded: never hang here)."""
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(command_io.output_closed), 2)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(command_io.exited), 2)
    finally:
        transport.close()  # closes our end of the pipe even if a straggler still holds it


class _UpdateStreamer:
    """Sends new output as `tool_execution_update`s, at most every `interval_s`."""

    MAX_CHARS = 16_000  # per update: a flood must not flood the event stream too

    __slots__ = ("_ctx", "_dropped", "_interval", "_last", "_pending", "_size", "_timer")

    def __init__(self, ctx: ToolContext, interval_s: float) -> None:
        self._ctx = ctx
        self._interval = interval_s
        self._pending: list[str] = []
        self._size = 0
        self._dropped = 0
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, text: str) -> None:
        if not text:
            return
        room = self.MAX_CHARS - self._size
        if room > 0:
            self._pending.append(text[:room])
            self._size += min(room, len(text))
        self._dropped += max(0, len(text) - max(room, 0))
        now = time.monotonic()
        if now - self._last >= self._interval:
            self.flush()
        elif self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._interval - (now - self._last), self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        text = "".join(self._pending)
        if self._dropped:
            text += f"\n[... {self._dropped} characters of output not streamed ...]\n"
        self._pending, self._size, self._dropped = [], 0, 0
        self._last = time.monotonic()
        self._ctx.on_update(text)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
