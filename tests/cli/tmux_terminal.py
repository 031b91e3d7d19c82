"""A real terminal for tests: a command in a tmux pane, driven with send-keys and read
with capture-pane. Each terminal has its own tmux server (`tmux -L NAME`)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.cli_process import clean_env, tiller_command

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (`make system-deps` installs it)"
)
WAIT_S = 60.0  # generous: the machine may be busy; the wait ends as soon as the text shows


class Terminal:
    def __init__(self, socket: str, status_file: Path) -> None:
        self.socket = socket
        self.status_file = status_file

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        out = subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        if out.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {out.stderr.strip()}")
        return out.stdout

    def send(self, *keys: str) -> None:
        """Type `keys` (tmux key names such as Enter and C-c, or literal text)."""
        self.tmux("send-keys", "-t", "main", *keys)

    def type_line(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)
        self.send("Enter")

    def screen(self) -> str:
        """The pane's text, scrollback included, with wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")

    def wait_for(self, check: str | Callable[[str], bool], timeout: float = WAIT_S) -> str:
        """Poll the screen until it contains `check` (or `check(screen)` is true)."""
        test = (lambda s: check in s) if isinstance(check, str) else check
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {check!r}; the screen:\n{screen}")
            time.sleep(0.05)

    def wait_for_prompt(self, prompt: str = "you›") -> str:
        """Wait until the last line shown is an empty `prompt` (the program waits for input).

        Call it after waiting for the output of the previous line, not right after typing.
        """

        def at_prompt(screen: str) -> bool:
            lines = [line.strip() for line in screen.splitlines() if line.strip()]
            return bool(lines) and lines[-1] == prompt

        return self.wait_for(at_prompt)

    def exit_status(self) -> int | None:
        """The command's exit status once it has exited (128 + N when killed by signal N),
        else None. (tmux's own `pane_dead_status` is not always filled in, so the shell
        that runs the command writes it to a file.)"""
        try:
            return int(self.status_file.read_text())
        except (FileNotFoundError, ValueError):  # not written yet, or half-written
            return None

    def wait_for_exit(self, timeout: float = WAIT_S) -> int:
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the command did not exit; the screen:\n{self.screen()}")
            time.sleep(0.05)
        return status


@contextmanager
def terminal(
    args: Sequence[str],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    width: int = 100,
    height: int = 40,
    test_models: bool = False,
) -> Iterator[Terminal]:
    """`tiller ARGS...` running in a fresh tmux server; the server is killed afterwards."""
    assert TMUX is not None
    socket = f"tiller-test-{uuid.uuid4().hex[:12]}"
    config = cwd / f".{socket}.conf"
    config.write_text("set -g remain-on-exit on\nset -g history-limit 10000\nset -g status off\n")
    status = cwd / f".{socket}.status"
    # The shell survives Ctrl-C (a trap, not an ignore: the command still gets SIGINT) and
    # records the command's exit status with a builtin: a Ctrl-C typed after the command
    # left cannot kill that (it could kill an `mv`).
    script = (
        f"trap : INT; {shlex.join([*tiller_command(test_models=test_models), *args])}; "
        f"echo $? > {shlex.quote(str(status))}"
    )
    # The terminal's own size, not COLUMNS/LINES, must decide the layout.
    sized = {k: v for k, v in clean_env(env).items() if k not in ("COLUMNS", "LINES")}
    full_env = {**sized, "TERM": "xterm-256color"}
    new_session = ["new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height)]
    started = subprocess.run(
        [TMUX, "-L", socket, "-f", str(config), *new_session, "-c", str(cwd), "sh", "-c", script],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if started.returncode != 0:
        raise AssertionError(f"tmux could not start: {started.stderr.strip()}")
    term = Terminal(socket, status)
    socket_path = Path(term.tmux("display-message", "-p", "#{socket_path}").strip())
    try:
        yield term
    finally:
        subprocess.run([TMUX, "-L", socket, "kill-server"], capture_output=True, timeout=30)
        socket_path.unlink(missing_ok=True)  # kill-server leaves the socket file behind
