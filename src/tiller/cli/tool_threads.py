"""The threads synchronous tools run in, and leaving the process while one still runs.

A synchronous tool runs in a worker thread (`asyncio.to_thread`), and Python cannot
stop a thread. Aborting the run stops waiting for it; the thread goes on until its
function returns. The CLI's event loops use `ToolThreads` as their default executor
so they know which functions are still running, and `leave` ends the process without
waiting for them (the interpreter would otherwise join them at exit, and a third
Ctrl-C would end in a threading traceback).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from rich.console import Console
from rich.markup import escape

P = ParamSpec("P")
T = TypeVar("T")


class ToolThreads(ThreadPoolExecutor):
    """A thread pool that knows the names of the functions running in it."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="tiller-tool")
        self._running: dict[int, str] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        key, name = next(self._ids), _name_of(fn)
        if _is_model_work(fn):  # a model's own worker (loading, decoding): not a tool
            name = ""

        def tracked() -> T:
            with self._lock:
                self._running[key] = name
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    del self._running[key]

        return super().submit(tracked)

    def busy(self) -> list[str]:
        """The names of the tool functions running now, each once."""
        with self._lock:
            return [name for name in dict.fromkeys(self._running.values()) if name]

    def working(self) -> bool:
        """Whether any function runs now, a model's own work included."""
        with self._lock:
            return bool(self._running)


def _is_model_work(fn: Callable[..., Any]) -> bool:
    inner = fn.args[0] if isinstance(fn, functools.partial) and fn.args else fn
    return str(getattr(inner, "__module__", "")).startswith("tiller.models.")


def _name_of(fn: Callable[..., Any]) -> str:
    """`asyncio.to_thread(f)` submits `partial(context.run, f, ...)`: the name of `f`."""
    if isinstance(fn, functools.partial):
        runs_first_arg = getattr(fn.func, "__name__", "") == "run" and fn.args
        fn = fn.args[0] if runs_first_arg and callable(fn.args[0]) else fn.func
    return str(getattr(fn, "__name__", "a tool"))


def still_running_note(names: list[str], *, leaving: bool) -> str:
    """One line of markup about tool functions that are still running."""
    what = ", ".join(names)
    verb = "was" if leaving else "is"
    if leaving:
        rest = "tiller left without waiting for it"
    else:
        rest = "it finishes in the background and its result is dropped"
    return (
        f"[yellow]note:[/] {escape(what)} {verb} still running (a synchronous tool cannot be "
        f"interrupted); {rest}"
    )


def leave(code: int, threads: ToolThreads, err: Console) -> None:
    """Return if no tool is running; else say so and end the process now with `code`."""
    if not threads.working():
        return
    busy = threads.busy()
    if busy:  # a model still loading needs no note: nothing of the user's is left behind
        err.print(still_running_note(busy, leaving=True), highlight=False, soft_wrap=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
