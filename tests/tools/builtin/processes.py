"""Finding a shell command's processes from outside, also inside the sandbox's PID namespace.

Inside the sandbox, `$$` and `$!` are PIDs of its own namespace, meaningless here. These
helpers find processes by what the host's /proc shows of them instead: the run marker in
their environment (the command prints it: `echo run=$TILLER_SHELL_RUN`), or an argument.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

PRINT_RUN = "echo run=$TILLER_SHELL_RUN; "  # prefix a command with this to find it later


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie awaiting its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _live_pids_whose(read: str, matches: Callable[[bytes], bool]) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            data = Path(f"/proc/{entry}/{read}").read_bytes()
        except OSError:
            continue
        if matches(data) and alive(int(entry)):
            found.append(int(entry))
    return found


def run_of(text: str) -> str:
    """The run marker a command printed with `PRINT_RUN`."""
    match = re.search(r"run=([0-9a-f]+)", text)
    assert match, f"no run= line in {text!r}"
    return match.group(1)


def marked(run: str) -> list[int]:
    """Live processes whose environment carries the run marker `run`."""
    needle = f"TILLER_SHELL_RUN={run}".encode()
    return _live_pids_whose("environ", lambda data: needle in data.split(b"\0"))


def running_with_argument(argument: str) -> list[int]:
    """Live processes that have `argument` among their command line's arguments."""
    needle = argument.encode()
    return _live_pids_whose("cmdline", lambda data: needle in data.split(b"\0")[1:])


def wait_until_none(find: Callable[[], list[int]]) -> list[int]:
    """What `find` still finds after a bounded wait (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if not find():
            return []
        time.sleep(0.05)
    return find()


def pids_in(text: str) -> list[int]:
    """The PIDs a command printed as `pid=N` (host PIDs only when it ran unsandboxed)."""
    return [int(p) for p in re.findall(r"pid=(\d+)", text)]


def wait_until_dead(pids: list[int]) -> list[int]:
    return wait_until_none(lambda: [p for p in pids if alive(p)])
