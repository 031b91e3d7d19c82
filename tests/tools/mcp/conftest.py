"""Real MCP servers for the MCP tests, and a check that nothing is left running after each."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tiller.tools.mcp import HttpServer, MCPServerSpec, StdioServer

SERVERS = Path(__file__).parent / "servers"
PYTHON = sys.executable
# Servers that outlive one test on purpose (module fixtures): not leaks.
_SHARED_SERVERS: set[int] = set()


def stdio_server(script: str, *args: str) -> StdioServer:
    return StdioServer(PYTHON, (str(SERVERS / script), *args))


def child_pids() -> set[int]:
    """Live (or unreaped) processes whose parent is this test process."""
    me = str(os.getpid())
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: split after it.
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[1] == me:
            pids.add(int(entry.name))
    return pids


async def eventually(check: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Whether `check` becomes true within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def is_gone(pid: int) -> bool:
    """True once `pid` has exited (a zombie still counts as there: it was not reaped)."""
    return not Path(f"/proc/{pid}").exists()


@pytest.fixture(autouse=True)
def _nothing_left_running() -> Iterator[None]:
    before = child_pids()
    yield
    deadline = time.monotonic() + 5  # a killed process takes a moment to be reaped
    while (left := child_pids() - before - _SHARED_SERVERS) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not left, f"processes left running after the test: {sorted(left)}"


@dataclass
class HttpToolbox:
    """The toolbox server over Streamable HTTP, in a subprocess of its own."""

    process: subprocess.Popen[str]
    spec: HttpServer

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code


def start_http_toolbox() -> HttpToolbox:
    process = subprocess.Popen(
        [PYTHON, str(SERVERS / "toolbox.py"), "--http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.strip().isdigit():
        process.kill()
        process.wait()
        raise RuntimeError(f"the HTTP toolbox did not start (printed {line!r})")
    return HttpToolbox(process, HttpServer(f"http://127.0.0.1:{int(line)}/mcp"))


@pytest.fixture(scope="module")
def http_toolbox() -> Iterator[HttpToolbox]:
    server = start_http_toolbox()
    _SHARED_SERVERS.add(server.process.pid)
    yield server
    server.stop()
    _SHARED_SERVERS.discard(server.process.pid)


@pytest.fixture
def fresh_http_toolbox() -> Iterator[HttpToolbox]:
    """A server of the test's own, for tests that kill it."""
    server = start_http_toolbox()
    yield server
    server.stop()


@pytest.fixture(params=["stdio", "http"])
def toolbox(request: pytest.FixtureRequest) -> MCPServerSpec:
    """The toolbox server over each transport in turn."""
    if request.param == "stdio":
        return stdio_server("toolbox.py")
    http: HttpToolbox = request.getfixturevalue("http_toolbox")
    return http.spec
