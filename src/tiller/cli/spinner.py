"""A spinner on stderr while the agent waits on the model or a tool."""

from __future__ import annotations

import threading

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.spinner import Spinner


class ActivitySpinner:
    """A transient one-line spinner (Rich `Live`) that leaves nothing behind when it stops.

    It never redirects `sys.stdout`/`sys.stderr`, so `input()` keeps its line editing and
    answer text written elsewhere is not captured. Stop it before writing to the same terminal
    through another console. Safe to start, relabel and stop from any thread.
    """

    def __init__(self, console: Console) -> None:
        self._spinner = Spinner("dots", style="cyan")
        self._live = Live(
            self._spinner,
            console=console,
            transient=True,
            refresh_per_second=12.5,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self._live.is_started

    def show(self, label: str) -> None:
        """Spin with `label`, starting the spinner if it is not running."""
        with self._lock:
            self._spinner.update(text=f"[dim]{escape(label)}[/]")
            if not self._live.is_started:
                self._live.start(refresh=True)

    def hide(self) -> None:
        with self._lock:
            if self._live.is_started:
                self._live.stop()
