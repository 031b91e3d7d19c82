"""An asyncio event loop on a thread of its own, for a CLI whose main thread reads input."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """Runs coroutines on a background event loop; the main thread stays free for `input()`.

    Keeping the main thread for input means Ctrl-C (delivered to the main thread) never
    lands inside the agent's code, and readline keeps working while a run streams.
    """

    def __init__(
        self, name: str = "tiller-loop", *, executor: concurrent.futures.Executor | None = None
    ) -> None:
        self.loop = asyncio.new_event_loop()
        if executor is not None:  # where `asyncio.to_thread` runs functions
            self.loop.set_default_executor(executor)
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule `coro` on the loop; its result (or exception) arrives in the future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, fn: Callable[..., object], *args: object) -> None:
        """Call `fn(*args)` on the loop's thread, soon."""
        self.loop.call_soon_threadsafe(fn, *args)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the loop (tasks still pending are dropped) and wait for its thread."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()
