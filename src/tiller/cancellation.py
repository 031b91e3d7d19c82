"""`CancelToken`: a cancellation signal shared by a run, its model calls and its tools.

Cancelling a token cancels its children; cancelling a child leaves the parent
alone. Sync tools in worker threads poll `token.cancelled`; async code can
`await token.wait()` or register a callback.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable


class CancelToken:
    __slots__ = ("_callbacks", "_cancelled", "_detach", "_reason")

    def __init__(self) -> None:
        self._cancelled = False
        self._reason = ""
        self._callbacks: list[Callable[[], None]] = []
        self._detach: Callable[[], None] = _nothing

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def reason(self) -> str:
        return self._reason

    def cancel(self, reason: str = "cancelled") -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when cancelled (at once if already). Returns an unregister function."""
        if self._cancelled:
            callback()
            return _nothing
        self._callbacks.append(callback)

        def unregister() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return unregister

    def child(self) -> CancelToken:
        """A token cancelled with this one. Call `child.detach()` when done with it."""
        child = CancelToken()
        child._detach = self.on_cancel(lambda: child.cancel(self._reason))
        return child

    def detach(self) -> None:
        """Stop following the parent (so a finished child does not stay registered)."""
        self._detach()
        self._detach = _nothing

    async def wait(self) -> None:
        if self._cancelled:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        unregister = self.on_cancel(wake)
        try:
            await future
        finally:
            unregister()


def _nothing() -> None:
    return None
