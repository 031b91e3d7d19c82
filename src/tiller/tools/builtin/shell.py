"""`shell`: run a command in the workspace, sandboxed, with a timeout, capped and streamed output.

The command runs under bash (or sh) with the workspace as its directory, no
stdin, stdout and stderr merged, and an allow-listed environment
(`shell_environment`). By default it runs in a bubblewrap `Sandbox`: the
workspace is the only writable place, the host's programs and `/etc` are
read-only, the rest of the file system, the network and the host's processes
are out of sight. Without bubblewrap the tool refuses to be built, unless
`sandbox=False` opts in to an unsandboxed shell: commands then run as the
user, and reach whatever the user can.

Output streams to `tool_execution_update` events (the new text since the last
update, at most every `update_interval_s`); the result keeps the head and tail
of it around the `[... N lines truncated ...]` marker. When the command ends,
times out or the call is cancelled, nothing it started is left running: in the
sandbox, its PID namespace dies with it; unsandboxed, its process group is
killed, and so is any process that left the group but still carries this
run's marker in its environment.
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
from collections.abc import Iterable, Mapping
from typing import Annotated, Literal

from pydantic import Field

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools.base import ToolContext
from tiller.tools.builtin.output_capture import HeadTailCapture
from tiller.tools.builtin.sandbox import Sandbox
from tiller.tools.builtin.shell_environment import RUN_MARKER, shell_environment
from tiller.tools.effects import ToolEffect
from tiller.tools.function_tool import FunctionTool
from tiller.tools.workspace import Workspace

READ_CHUNK = 65536
DEFAULT_SANDBOX = Sandbox()
SANDBOX_CHECK_TIMEOUT_S = 30.0
# Looks through /proc for a command's stragglers, and the pause between them.
MARKER_LOOKS = 4
MARKER_PAUSE_S = 0.01


class ShellTool(FunctionTool):
    """The `shell` tool; `sandbox=False` opts in to running commands unsandboxed.

    `env` sets variables for every command; `env_allow` names variables of this
    process's environment that commands may see (all others are left out, see
    `shell_environment`). `Sandbox(network=True, read_only=[...])` loosens the sandbox.
    """

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
        env_allow: Iterable[str] = (),
        shell: str | None = None,
        sandbox: Sandbox | Literal[False] = DEFAULT_SANDBOX,
    ) -> None:
        self.workspace = workspace
        self.default_timeout_s = default_timeout_s
        self.max_timeout_s = max_timeout_s
        self.max_output_lines = max_output_lines
        self.max_line_chars = max_line_chars
        self.update_interval_s = update_interval_s
        self.kill_grace_s = kill_grace_s
        self.extra_env = dict(env or {})
        self.env_allow = tuple(env_allow)
        self.shell = shell or shutil.which("bash") or "/bin/sh"
        self.sandbox = sandbox
        if sandbox:
            sandbox.executable()  # no bubblewrap: refuse now, saying how to get it or opt out
        self._sandbox_prefix: list[str] | None = None
        self._sandbox_failure: str | None = None
        super().__init__(
            self.shell_command,
            name="shell",
            description=_description(sandbox),
            effect=ToolEffect.EXTERNAL,
        )

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
        is available: do not run interactive programs."""  # _description adds the sandbox
        timeout = min(timeout_s or self.default_timeout_s, self.max_timeout_s)
        marker = secrets.token_hex(8)
        env = shell_environment(
            os.environ, home=str(self.workspace.root), allow=self.env_allow, extra=self.extra_env
        )
        env[RUN_MARKER] = marker
        argv = [self.shell, "-c", command]
        if self.sandbox:
            # bubblewrap itself starts with this environment: its init (PID 1 inside) is
            # readable at /proc/1/environ, so nothing may be in it that the command may not see.
            argv = [*await self._sandbox_prefix_for(env), *argv]
        capture = HeadTailCapture(self.max_output_lines, self.max_line_chars)
        streamer = _UpdateStreamer(ctx, self.update_interval_s)
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        transport, command_io = await loop.subprocess_exec(
            lambda: _CommandProtocol(loop, capture, streamer),
            *argv,
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
                if self.sandbox:  # SIGTERM to bubblewrap would SIGKILL the sandbox at once
                    _signal_marked(marker, signal.SIGTERM, spare=pgid)
                else:
                    _signal_group(pgid, signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(command_io.exited), self.kill_grace_s)
        finally:
            # Whatever happened (also on task cancellation): nothing of it may outlive us.
            # Sandboxed, killing bubblewrap kills its PID namespace, with all in it.
            _signal_group(pgid, signal.SIGKILL)
            if not self.sandbox:
                _signal_marked(marker, signal.SIGKILL)
            await _finish(transport, command_io)
            streamer.close()
        return self._result(transport.get_returncode(), outcome, timeout, capture, started)

    async def _sandbox_prefix_for(self, env: Mapping[str, str]) -> list[str]:
        """bubblewrap and its options, once it has been seen to start here (checked once)."""
        assert self.sandbox
        if self._sandbox_prefix is None and self._sandbox_failure is None:
            root = str(self.workspace.root)
            prefix = [self.sandbox.executable(), *self.sandbox.arguments(root), "--"]
            failure = await _sandbox_failure([*prefix, self.shell, "-c", "true"], env, root)
            if failure is None:
                self._sandbox_prefix = prefix
            else:
                self._sandbox_failure = failure
        if self._sandbox_prefix is None:
            raise ToolError(str(self._sandbox_failure))
        return self._sandbox_prefix

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


def _description(sandbox: Sandbox | Literal[False]) -> str:
    text = " ".join((ShellTool.shell_command.__doc__ or "").split())
    if not sandbox:
        return text
    network = "has network access" if sandbox.network else "has no network access"
    return (
        f"{text} It runs in a sandbox: only the workspace can be written, little outside it "
        f"exists (system programs and libraries, read-only), and it {network}."
    )


async def _sandbox_failure(argv: list[str], env: Mapping[str, str], cwd: str) -> str | None:
    """Why the sandbox cannot start here (bubblewrap's own words and what to do), or None."""
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        said = str(exc)
    else:
        try:
            output, _ = await asyncio.wait_for(process.communicate(), SANDBOX_CHECK_TIMEOUT_S)
        except TimeoutError:
            _signal_group(process.pid, signal.SIGKILL)
            await process.wait()
            output = b"(no answer within %ds)" % SANDBOX_CHECK_TIMEOUT_S
        finally:
            if process.returncode is None:  # cancelled: leave nothing behind
                _signal_group(process.pid, signal.SIGKILL)
        if process.returncode == 0:
            return None
        said = output.decode(errors="replace").strip() or f"exit code {process.returncode}"
    opt_out = (
        "opt in to an unsandboxed shell (ShellTool(..., sandbox=False)), where commands run "
        "with all of the user's files, processes and network within reach. No command was run."
    )
    if "No such file or directory" in said and "execvp" in said:
        return (
            f"The shell's sandbox cannot run the shell {argv[-3]!r}: {said}. Inside it only "
            "/usr, /bin, /lib and /etc of this system exist; pick a shell there, add its "
            f"directory with Sandbox(read_only=[...]), or {opt_out}"
        )
    return (
        f"The shell's sandbox (bubblewrap) cannot start here: {said}. Bubblewrap needs "
        "unprivileged user namespaces, which containers and some hardened systems turn "
        "off. Allow them (e.g. sysctl kernel.unprivileged_userns_clone=1, or a container "
        f"seccomp profile that permits them), or {opt_out}"
    )


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


def _signal_marked(marker: str, sig: signal.Signals, spare: int | None = None) -> None:
    """Signal the processes carrying our marker, also those that left the process group
    (`setsid`, double fork) or run in the sandbox's PID namespace (seen here by host PID).

    A process in the middle of `execve` shows an empty environment for an instant, so
    one look can miss it: /proc is read again after a pause, and again while a look
    still finds someone."""
    for look in range(MARKER_LOOKS):
        found = _signal_marked_once(marker, sig, spare)
        if not found and look >= 1:
            return
        time.sleep(MARKER_PAUSE_S)


def _signal_marked_once(marker: str, sig: signal.Signals, spare: int | None) -> int:
    """One look through /proc; how many marked processes were signalled."""
    needle = f"{RUN_MARKER}={marker}".encode()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0  # no procfs: the process group is all we can reach
    skip = {str(os.getpid()), str(spare)}
    signalled = 0
    for entry in entries:
        if not entry.isdigit() or entry in skip:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                found = needle in f.read().split(b"\0")
        except OSError:
            continue
        if found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry), sig)
                signalled += 1
    return signalled


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
