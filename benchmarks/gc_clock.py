"""How long Python's cyclic garbage collector ran during a timed operation.

Standard library only, so benchmarks in either venv can use it. A full (generation 2)
collection walks every tracked object in the process, so with a large history in memory
one collection can cost a sizeable part of an operation: the figure says how much of a
timing was the collector rather than the code being timed.
"""

from __future__ import annotations

import gc
import time
from types import TracebackType
from typing import Any


class GcClock:
    """While entered, adds up the seconds spent in collections and counts full ones."""

    __slots__ = ("_started", "full_collections", "seconds")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.full_collections = 0
        self._started = 0.0

    def reset(self) -> None:
        self.seconds = 0.0
        self.full_collections = 0

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.seconds += time.perf_counter() - self._started
        if info.get("generation") == 2:
            self.full_collections += 1

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        gc.callbacks.remove(self._callback)
