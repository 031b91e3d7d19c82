"""Wakes a waiter in this process the moment an approval it waits for is decided.

Only a shortcut: the decision itself is in the database, which waiters also poll, so a
decision made by another process is seen on the next poll. Keyed by the database and the
approval's id, so two stores of one database in a process wake each other too. Safe
across threads and event loops.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_waiters: dict[tuple[str, str], set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}


@contextmanager
def listening(database: str, approval_id: str) -> Iterator[asyncio.Event]:
    """An event set when `signal(database, approval_id)` is called, while in the block."""
    key = (database, approval_id)
    entry = (asyncio.get_running_loop(), asyncio.Event())
    with _lock:
        _waiters.setdefault(key, set()).add(entry)
    try:
        yield entry[1]
    finally:
        with _lock:
            waiting = _waiters.get(key)
            if waiting is not None:
                waiting.discard(entry)
                if not waiting:
                    del _waiters[key]


def signal(database: str, approval_id: str) -> None:
    """Wake every waiter of this process listening for the approval."""
    with _lock:
        entries = list(_waiters.get((database, approval_id), ()))
    for loop, event in entries:
        if loop.is_closed():
            continue
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # the loop closed in between
            continue
