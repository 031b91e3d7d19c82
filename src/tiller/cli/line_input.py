"""Reading the user's lines in `tiller chat`.

At the prompt, lines come through `input()` with readline editing and history (when
stdin is a terminal). While an answer streams, the terminal stays in its ordinary
line mode: what the user types is echoed by the terminal and arrives a whole line at
a time, so `/steer` and Ctrl-C work without taking the terminal over.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TextIO


class LineReader:
    """Lines from `stdin`. Raises `EOFError` at the end of input (Ctrl-D)."""

    def __init__(
        self,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        *,
        completions: Sequence[str] = (),
    ) -> None:
        self._stdin = stdin or sys.stdin
        self._stdout = stdout or sys.stdout
        self.interactive = self._stdin.isatty()
        self.discarded_text = False  # the last Ctrl-C at the prompt cleared typed text
        self._pending = b""
        self._readline = _readline(completions) if self.interactive else None

    def read(self, prompt: str) -> str:
        """The next line, after `prompt` when interactive (without its newline)."""
        if not self.interactive:
            line = self._stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        self.discarded_text = False
        carried = self._pending.decode(errors="replace")
        self._pending = b""
        rl = self._readline
        if carried and rl is not None:
            rl.set_pre_input_hook(lambda: _insert(rl, carried))
        try:
            return input(self._styled(prompt))
        except KeyboardInterrupt:
            self.discarded_text = bool(rl is not None and rl.get_line_buffer())
            self._stdout.write("\n")
            self._stdout.flush()
            raise
        finally:
            if carried and rl is not None:
                rl.set_pre_input_hook(None)

    def read_unless_woken(self, wake_fd: int) -> str | None:
        """A line typed while something else writes to the terminal, or None once `wake_fd`
        is readable (it is drained). Interactive use only."""
        fd = self._stdin.fileno()
        try:
            while b"\n" not in self._pending:
                ready, _, _ = select.select([fd, wake_fd], [], [])
                if wake_fd in ready:
                    os.read(wake_fd, 4096)
                    return None
                data = os.read(fd, 4096)
                if not data:
                    if self._pending:  # Ctrl-D after some text: take it as a line
                        break
                    raise EOFError
                self._pending += data
        except KeyboardInterrupt:
            self._pending = b""  # the terminal discards the typed line on Ctrl-C too
            raise
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def _styled(self, prompt: str) -> str:
        if self._readline is None or os.environ.get("NO_COLOR"):
            return prompt
        # \001 and \002 tell readline the escape codes take no room on the line.
        return f"\001\x1b[1;36m\002{prompt}\001\x1b[0m\002"


def _insert(rl: ModuleType, text: str) -> None:
    rl.insert_text(text)
    rl.redisplay()


def _readline(completions: Sequence[str]) -> ModuleType | None:
    """The readline module set up to complete `completions`, or None where there is none."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows
        return None
    words = sorted(completions)

    def complete(text: str, state: int) -> str | None:
        matches = [w for w in words if w.startswith(text)] if text.startswith("/") else []
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")
    if "libedit" in (readline.__doc__ or ""):  # pragma: no cover - macOS
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    return readline
