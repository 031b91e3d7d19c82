"""shell: runs in the workspace (sandboxed), capped + streamed output, nothing left running.

What the sandbox keeps out is in test_sandbox.py; the environment in test_shell_environment.py.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Recorder
from tests.tools.builtin.processes import (
    PRINT_RUN,
    alive,
    marked,
    pids_in,
    run_of,
    wait_until_dead,
    wait_until_none,
)
from tiller import Agent
from tiller.cancellation import CancelToken
from tiller.events import AgentEvent, ToolExecutionEnd, ToolExecutionUpdate
from tiller.messages import ToolResult
from tiller.models import Reply, ScriptedModel, call
from tiller.tools.base import ToolContext
from tiller.tools.builtin import ShellTool
from tiller.tools.workspace import Workspace
from tiller.truncation import truncate_head_tail


async def shell(
    ws: Workspace,
    command: str,
    token: CancelToken | None = None,
    timeout_s: float | None = None,
    **options: Any,
) -> ToolResult:
    tool = ShellTool(ws, **options)
    ctx = ToolContext("call_1", "shell", token or CancelToken())
    arguments: dict[str, Any] = {"command": command}
    if timeout_s is not None:
        arguments["timeout_s"] = timeout_s
    return await tool.execute(arguments, ctx)


async def test_runs_in_the_workspace_and_reports_the_exit_code(ws: Workspace) -> None:
    result = await shell(ws, "pwd; echo oops >&2")
    assert result.text == f"{ws.root}\noops\n[exit code 0]"
    assert not result.is_error
    assert result.details["exit_code"] == 0


async def test_a_failing_command_is_an_error_result_with_its_output(ws: Workspace) -> None:
    result = await shell(ws, "echo before; exit 3")
    assert result.is_error
    assert result.text == "before\n[exit code 3]"
    assert (await shell(ws, "true")).text == "(no output)\n[exit code 0]"


async def test_the_command_sees_the_workspace_as_home(ws: Workspace) -> None:
    result = await shell(ws, 'echo "$HOME"; cd && pwd')
    assert result.text == f"{ws.root}\n{ws.root}\n[exit code 0]"


async def test_a_command_that_never_ends_is_killed_with_its_children(ws: Workspace) -> None:
    # A subshell's sleep and a background sleep.
    command = PRINT_RUN + "(sleep 1000; echo never) & sleep 1000 & wait"
    result = await shell(ws, command, timeout_s=1)
    assert result.is_error
    assert result.details["timed_out"] is True
    assert result.text.endswith(
        "[timed out after 1s: the command and its child processes were killed. Run it with a "
        "larger timeout_s, or in smaller steps.]"
    )
    assert wait_until_none(lambda: marked(run_of(result.text))) == []


async def test_a_timed_out_command_gets_sigterm_first(ws: Workspace) -> None:
    command = "trap 'echo terminated; exit 7' TERM; sleep 1000 & wait"
    result = await shell(ws, command, timeout_s=0.5, kill_grace_s=60)
    assert result.details["timed_out"] is True
    assert result.text.startswith("terminated\n")


async def test_a_command_ignoring_sigterm_is_killed_after_the_grace(ws: Workspace) -> None:
    command = PRINT_RUN + "trap '' TERM; while true; do sleep 0.05; done"
    result = await shell(ws, command, timeout_s=0.5, kill_grace_s=0.2)
    assert result.details["timed_out"] is True
    assert wait_until_none(lambda: marked(run_of(result.text))) == []


async def test_background_processes_do_not_outlive_a_finished_command(ws: Workspace) -> None:
    # The shell exits at once; its background sleep would hold the pipe and live on.
    result = await shell(ws, PRINT_RUN + "sleep 1000 &")
    assert result.details["exit_code"] == 0
    assert result.details["timed_out"] is False  # it ended with the shell, not at the timeout
    assert wait_until_none(lambda: marked(run_of(result.text))) == []


async def test_a_flood_of_output_keeps_head_and_tail_with_the_seed_marker(ws: Workspace) -> None:
    result = await shell(ws, "seq 1 100000", max_output_lines=20)
    expected = truncate_head_tail("".join(f"{i}\n" for i in range(1, 100001)), 20)
    assert result.text == expected.rstrip("\n") + "\n[exit code 0]"
    assert "[... 99981 lines truncated ...]" in result.text
    assert result.details["truncated"] is True
    assert result.details["output_lines"] == 100000


async def test_an_endless_flood_is_bounded_and_killed(ws: Workspace) -> None:
    result = await shell(ws, PRINT_RUN + "yes", timeout_s=1, max_output_lines=10)
    assert result.details["timed_out"] is True
    assert result.text.startswith("run=")
    assert "lines truncated ...]" in result.text
    assert len(result.text) < 2000
    assert wait_until_none(lambda: marked(run_of(result.text))) == []


async def test_one_giant_line_is_clipped(ws: Workspace) -> None:
    result = await shell(ws, "head -c 3000000 /dev/zero | tr '\\0' a", max_line_chars=100)
    assert result.text == "a" * 100 + "… [2999900 more characters on this line]\n[exit code 0]"


class Updates:
    """A ToolReporter that keeps partial results and signals the first one."""

    loop_id = "test-loop"

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.first = asyncio.Event()

    def update(self, ctx: ToolContext, partial: ToolResult) -> None:
        self.texts.append(partial.text)
        self.first.set()

    def progress(self, ctx: ToolContext, text: str) -> None:
        return None

    def forward(self, event: AgentEvent) -> None:
        return None


def started_shell(
    ws: Workspace, command: str, token: CancelToken
) -> tuple[asyncio.Future[ToolResult], Updates]:
    updates = Updates()
    ctx = ToolContext("call_1", "shell", token, updates)
    task = asyncio.ensure_future(ShellTool(ws).execute({"command": command}, ctx))
    return task, updates


RUNNING_CHILD = "sleep 1000 & " + PRINT_RUN + "wait"  # its run= line: the child has started


async def test_cancelling_the_call_kills_the_command(ws: Workspace) -> None:
    token = CancelToken()
    task, updates = started_shell(ws, RUNNING_CHILD, token)
    await updates.first.wait()  # running, and its child started
    run = run_of(updates.texts[0])
    assert len(marked(run)) >= 3  # bubblewrap, its init, bash and sleep
    token.cancel("aborted")
    result = await task
    assert result.details["cancelled"] is True
    assert result.text.endswith("[cancelled: the command and its child processes were killed.]")
    assert wait_until_none(lambda: marked(run)) == []


async def test_cancelling_the_task_kills_the_command(ws: Workspace) -> None:
    task, updates = started_shell(ws, RUNNING_CHILD, CancelToken())
    await updates.first.wait()
    run = run_of(updates.texts[0])
    assert marked(run)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_until_none(lambda: marked(run)) == []


async def test_output_streams_as_updates_and_abort_kills_it(ws: Workspace) -> None:
    model = ScriptedModel(
        [Reply(calls=[call("shell", command=PRINT_RUN + "sleep 1000 & wait")]), Reply("done")]
    )
    agent = Agent(model, tools=[ShellTool(ws)])
    rec = Recorder()
    agent.subscribe(rec)

    def abort_on_first_update(event: object) -> None:
        if isinstance(event, ToolExecutionUpdate):
            agent.abort()  # the update came while the command was still running

    agent.subscribe(abort_on_first_update)
    result = await agent.run("go")
    assert result.stop_reason == "aborted"
    updates = rec.of(ToolExecutionUpdate)
    assert updates[0].partial_result.text.startswith("run=")
    run = run_of(updates[0].partial_result.text)
    assert wait_until_none(lambda: marked(run)) == []
    (end,) = rec.of(ToolExecutionEnd)
    assert end.is_error


async def test_all_output_arrives_in_updates(ws: Workspace) -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("shell", command="for i in 1 2 3; do echo $i; sleep 0.1; done")]),
            Reply("done"),
        ]
    )
    rec = Recorder()
    agent = Agent(model, tools=[ShellTool(ws, update_interval_s=0.05)])
    agent.subscribe(rec)
    await agent.run("go")
    streamed = "".join(u.partial_result.text for u in rec.of(ToolExecutionUpdate))
    assert streamed == "1\n2\n3\n"


async def test_timeout_is_capped_by_the_tool(ws: Workspace) -> None:
    result = await shell(ws, "sleep 1000", timeout_s=500, max_timeout_s=0.5)
    assert result.details["timed_out"] is True
    assert "timed out after 0.5s" in result.text


# Opted out of the sandbox: the process group and the run marker find what the command started.


async def test_unsandboxed_the_process_group_is_killed(ws: Workspace) -> None:
    command = "(sleep 1000; echo never) & echo pid=$!; sleep 1000 & echo pid=$!; wait"
    result = await shell(ws, command, timeout_s=1, sandbox=False)
    assert result.details["timed_out"] is True
    pids = pids_in(result.text)
    assert len(pids) == 2
    assert wait_until_dead(pids) == []


async def test_unsandboxed_a_process_that_left_the_group_is_found_by_its_marker(
    ws: Workspace,
) -> None:
    result = await shell(ws, "setsid sleep 1000 & echo pid=$!", sandbox=False)
    assert result.details["timed_out"] is False
    (pid,) = pids_in(result.text)
    assert wait_until_dead([pid]) == []


async def test_unsandboxed_a_command_ignoring_sigterm_is_killed_after_the_grace(
    ws: Workspace,
) -> None:
    command = "trap '' TERM; echo pid=$$; while true; do sleep 0.05; done"
    result = await shell(ws, command, timeout_s=0.5, kill_grace_s=0.2, sandbox=False)
    assert result.details["timed_out"] is True
    assert wait_until_dead(pids_in(result.text)) == []


def test_no_shell_process_is_left_over_from_these_tests() -> None:
    marked = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if b"TILLER_SHELL_RUN=" in environ and alive(int(entry)):
                marked.append(int(entry))
    assert marked == []
