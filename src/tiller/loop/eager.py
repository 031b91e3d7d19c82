"""Run coroutines concurrently, starting each eagerly.

Each coroutine runs at once up to its first real suspension; only those that
do suspend get a Task. A tool that answers without waiting (a calculation, a
lookup in memory) then costs no task and no event-loop round trip. This is what
Python 3.12's eager task factory does, done here so it works on 3.11 too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator, Iterable
from typing import Any

_NOTHING: Any = object()


class _Started(Coroutine[Any, Any, Any]):
    """A coroutine already advanced once: hands the Task what it is waiting on, then resumes it."""

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, Any], first: Any) -> None:
        self._coro = coro
        self._first = first

    def send(self, value: Any) -> Any:
        first = self._first
        if first is not _NOTHING:
            self._first = _NOTHING
            return first
        return self._coro.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        self._first = _NOTHING
        if val is None and tb is None:
            return self._coro.throw(typ)
        return self._coro.throw(typ, val, tb)  # pragma: no cover - legacy signature

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, None, Any]:
        raise TypeError("a started coroutine is only for wrapping in a Task")


async def gather_eagerly(coros: Iterable[Coroutine[Any, Any, Any]]) -> None:
    """Run `coros` concurrently to completion (their results are not collected)."""
    tasks: list[asyncio.Future[Any]] = []
    try:
        for coro in coros:
            try:
                first = coro.send(None)
            except StopIteration:
                continue
            tasks.append(asyncio.ensure_future(_Started(coro, first)))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    if len(tasks) == 1:
        await tasks[0]
    elif tasks:
        await asyncio.gather(*tasks)
