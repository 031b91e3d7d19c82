"""The shell's sandbox: the workspace is the only writable place; secrets, other files, the
network and the host's processes are out of reach; nothing started inside outlives the command.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tools.builtin.processes import running_with_argument, wait_until_dead, wait_until_none
from tiller.cancellation import CancelToken
from tiller.errors import ConfigError, ToolError
from tiller.messages import ToolResult
from tiller.tools.base import ToolContext
from tiller.tools.builtin import ShellTool, builtin_tools
from tiller.tools.builtin.sandbox import Sandbox
from tiller.tools.workspace import Workspace


async def shell(ws: Workspace, command: str, **options: Any) -> ToolResult:
    ctx = ToolContext("call_1", "shell", CancelToken())
    return await ShellTool(ws, **options).execute({"command": command}, ctx)


async def test_files_outside_the_workspace_are_not_there(ws: Workspace, root: Path) -> None:
    outside = root.parent / "outside"
    command = f"cat ../outside/secret.txt; cat {outside}/secret.txt; ls {Path.home()}"
    result = await shell(ws, command)
    assert "top secret" not in result.text
    assert "No such file or directory" in result.text
    assert result.is_error


IN_USR = "/usr/new.txt"


async def test_only_the_workspace_can_be_written(ws: Workspace, root: Path) -> None:
    outside = root.parent / "outside"
    result = await shell(
        ws, f"echo inside > made.txt; echo x > {outside}/new.txt; echo x > {IN_USR}"
    )
    assert (root / "made.txt").read_text() == "inside\n"
    assert not (outside / "new.txt").exists()
    assert "new.txt" not in os.listdir("/usr")
    assert "Read-only file system" in result.text


async def test_system_programs_run_and_tmp_is_private(ws: Workspace, tmp_path: Path) -> None:
    (tmp_path / "host-tmp-file").write_text("x")  # beside the workspace (tmp_path/ws)
    result = await shell(
        ws, f"ls {tmp_path}; echo scratch > /tmp/t && cat /tmp/t; python3 -c 'print(6*7)'"
    )
    assert result.text == "ws\nscratch\n42\n[exit code 0]"
    assert not (tmp_path.parent / "t").exists()


async def test_files_only_their_owner_may_read_in_etc_are_hidden(ws: Workspace) -> None:
    assert os.stat("/etc/shadow").st_mode & 0o004 == 0  # not world-readable on the host
    result = await shell(ws, "wc -c < /etc/shadow; head -c 4 /etc/hostname >/dev/null && echo ok")
    assert "root:" not in result.text
    assert result.text.splitlines()[-2:] == ["ok", "[exit code 0]"]


SECRETS = {
    "DATABASE_URL": "postgres://app:hunter2@db/prod",
    "REDIS_URL": "redis://:redispass@cache:6379",
    "SENTRY_DSN": "https://sentrykey@o1.ingest.sentry.io/1",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/slacksecret",
    "HTTPS_PROXY": "http://proxyuser:proxypass@proxy:3128",
    "OPENAIAPIKEY": "sk-nounderscores",
}


async def test_no_secret_is_in_the_environment_or_in_proc(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    lines = "tr '\\0' '\\n' < "
    command = f"env; echo ---; {lines}/proc/1/environ; echo ---; {lines}/proc/$PPID/environ"
    result = await shell(ws, command)
    assert not result.is_error, result.text
    own, init, parent = result.text.split("---\n")
    for part in (own, init, parent):
        assert "PATH=" in part  # each was read
        for value in SECRETS.values():
            assert value not in part


async def test_the_hosts_processes_are_out_of_sight(ws: Workspace) -> None:
    result = await shell(ws, f"kill -0 {os.getpid()} && echo visible || echo invisible")
    assert "invisible" in result.text


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host's 127.0.0.1 that accepts connections."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


CONNECT = "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"


async def test_no_network_unless_allowed(ws: Workspace, listener: int) -> None:
    blocked = await shell(ws, CONNECT.format(port=listener))
    assert blocked.text.splitlines()[-2] == "refused"
    allowed = await shell(ws, CONNECT.format(port=listener), sandbox=Sandbox(network=True))
    assert allowed.text.splitlines()[-2] == "connected"


async def test_a_process_escaping_session_and_marker_dies_with_the_command(
    ws: Workspace,
) -> None:
    # A new session and an empty environment: neither the process group nor the run
    # marker can find it; the PID namespace still holds it.
    argument = f"1000.{secrets.randbelow(10**9)}"
    result = await shell(ws, f"setsid env -i sleep {argument} & sleep 0.2; echo started")
    assert "started" in result.text
    assert wait_until_none(lambda: running_with_argument(argument)) == []


async def test_a_double_forked_daemon_dies_with_the_command(ws: Workspace) -> None:
    argument = f"1000.{secrets.randbelow(10**9)}"
    result = await shell(ws, f"( (nohup env -i sleep {argument} >/dev/null 2>&1 &) & ); sleep 0.2")
    assert not result.is_error
    assert wait_until_none(lambda: running_with_argument(argument)) == []


RUN_AND_HANG = """
import asyncio, sys
from tiller.cancellation import CancelToken
from tiller.tools.base import ToolContext
from tiller.tools.builtin import ShellTool
from tiller.tools.workspace import Workspace
tool = ShellTool(Workspace(sys.argv[1]))
asyncio.run(tool.execute({"command": sys.argv[2]}, ToolContext("c", "shell", CancelToken())))
"""


def test_the_command_dies_when_tiller_is_killed(ws: Workspace) -> None:
    # SIGKILL gives Tiller no chance to clean up: the sandbox must die with its parent.
    argument = f"1000.{secrets.randbelow(10**9)}"
    tiller = subprocess.Popen(
        [sys.executable, "-c", RUN_AND_HANG, str(ws.root), f"setsid sleep {argument} & wait"]
    )
    try:
        assert wait_until_none(lambda: [] if running_with_argument(argument) else [1]) == []
    finally:
        tiller.send_signal(signal.SIGKILL)
        tiller.wait()
    assert wait_until_dead([tiller.pid]) == []
    assert wait_until_none(lambda: running_with_argument(argument)) == []


async def test_extra_read_only_paths(ws: Workspace, root: Path) -> None:
    tools = root.parent / "outside"
    result = await shell(
        ws, f"cat {tools}/secret.txt; touch {tools}/x", sandbox=Sandbox(read_only=[str(tools)])
    )
    assert "top secret" in result.text
    assert "Read-only file system" in result.text


def test_without_bubblewrap_the_shell_refuses_to_start(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap there
    with pytest.raises(ConfigError) as info:
        ShellTool(ws)
    message = str(info.value)
    assert "bubblewrap" in message
    assert "apt-get install bubblewrap" in message
    assert "sandbox=False" in message
    with pytest.raises(ConfigError, match="bubblewrap"):
        builtin_tools(["shell"], ws)
    assert ShellTool(ws, sandbox=False).sandbox is False  # opting out is explicit


async def test_opted_out_the_shell_runs_unconfined(ws: Workspace, root: Path) -> None:
    result = await shell(ws, "cat ../outside/secret.txt", sandbox=False)
    assert result.text == "top secret\n[exit code 0]"
    unsandboxed = ShellTool(ws, sandbox=False).description
    assert "sandbox" not in unsandboxed
    assert "It runs in a sandbox" in ShellTool(ws).description


async def test_a_sandbox_that_cannot_start_is_one_clear_error(ws: Workspace, root: Path) -> None:
    # What bubblewrap says where user namespaces are not allowed (as in many containers).
    fake = root.parent / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    tool = ShellTool(ws, sandbox=Sandbox(program=str(fake)))
    ctx = ToolContext("call_1", "shell", CancelToken())
    for _ in range(2):
        with pytest.raises(ToolError) as info:
            await tool.execute({"command": "touch ran.txt"}, ctx)
        message = str(info.value)
        assert message.startswith(
            "The shell's sandbox (bubblewrap) cannot start here: bwrap: setting up uid map: "
            "Permission denied. Bubblewrap needs unprivileged user namespaces"
        )
        assert "sandbox=False" in message
    assert not (root / "ran.txt").exists()


async def test_builtin_tools_pass_the_shell_its_sandbox_and_allowed_names(
    ws: Workspace, listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SETTING", "named")
    (tool,) = builtin_tools(
        ["shell"], ws, shell_sandbox=Sandbox(network=True), shell_env_allow=["SETTING"]
    )
    ctx = ToolContext("call_1", "shell", CancelToken())
    result = await tool.execute({"command": "echo $SETTING; " + CONNECT.format(port=listener)}, ctx)
    assert result.text == "named\nconnected\n[exit code 0]"
    (unsandboxed,) = builtin_tools(["shell"], ws, shell_sandbox=False)
    assert isinstance(unsandboxed, ShellTool)
    assert unsandboxed.sandbox is False


async def test_a_shell_outside_the_sandbox_is_a_clear_error(ws: Workspace, root: Path) -> None:
    elsewhere = root.parent / "bash"
    shutil.copy(shutil.which("bash") or "/bin/sh", elsewhere)
    tool = ShellTool(ws, shell=str(elsewhere))
    with pytest.raises(ToolError) as info:
        await tool.execute({"command": "true"}, ToolContext("call_1", "shell", CancelToken()))
    assert str(info.value).startswith(f"The shell's sandbox cannot run the shell '{elsewhere}'")
    assert "Sandbox(read_only=[...])" in str(info.value)
