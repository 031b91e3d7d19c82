"""A run's events: numbered, stored, and only then sent.

`RunEventLog` takes the run's events as the loop emits them (synchronously), numbers
them, and a writer task stores them in batches: every event waiting when the writer
comes round goes in one transaction, so a burst of text deltas costs one write. Only
after a batch is committed does `EventHub` tell the run's subscribers, who read what
they have not seen from the store: a client never sees an event the store could lose.

`EventHub` wakes the subscribers of this process at once; subscribers also look at
the store every `poll_interval` seconds, for runs executing in another process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Any

from tiller.codec import to_data
from tiller.events import Event
from tiller.store import Store

log = logging.getLogger(__name__)

# The last event of every run, after which its stream ends: {"status": ..., ...}.
RUN_FINISHED = "run_finished"


class EventHub:
    """Who waits for which run's events, in this process."""

    def __init__(self, poll_interval: float = 1.0) -> None:
        self.poll_interval = poll_interval
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)

    def published(self, run_id: str) -> None:
        """New events of `run_id` are stored: wake its subscribers."""
        for waiter in self._waiters.get(run_id, ()):
            waiter.set()

    async def wait(self, run_id: str, waiter: asyncio.Event) -> None:
        """Until `published(run_id)` or the poll interval passes."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter.wait(), self.poll_interval)
        waiter.clear()

    def subscribe(self, run_id: str) -> asyncio.Event:
        waiter = asyncio.Event()
        self._waiters[run_id].add(waiter)
        return waiter

    def unsubscribe(self, run_id: str, waiter: asyncio.Event) -> None:
        waiters = self._waiters.get(run_id)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiters[run_id]


class RunEventLog:
    """The events of one run being executed: `emit` numbers, the writer stores."""

    def __init__(
        self, store: Store, hub: EventHub, run_id: str, last_seq: int, *, sealed: bool = False
    ) -> None:
        self._sealed = sealed  # a sensitive session's: stored sealed
        self._store = store
        self._hub = hub
        self.run_id = run_id
        self._seq = last_seq
        self._pending: list[tuple[int, str, dict[str, Any]]] = []
        self._wake = asyncio.Event()
        self._stored = last_seq
        self._written = asyncio.Condition()
        self._failure: BaseException | None = None
        self._writer = asyncio.create_task(self._write(), name=f"events of run {run_id}")

    @property
    def last_seq(self) -> int:
        return self._seq

    def emit(self, event: Event) -> None:
        """Number `event` and queue it for the writer (the loop's event sink)."""
        self.record(event.type, to_data(event))

    def record(self, kind: str, data: dict[str, Any]) -> None:
        if self._failure is not None:
            raise RuntimeError(f"the events of run {self.run_id} cannot be stored") from (
                self._failure
            )
        self._seq += 1
        self._pending.append((self._seq, kind, data))
        self._wake.set()

    async def flush(self) -> None:
        """Until every event emitted so far is stored (or storing them failed)."""
        target = self._seq
        async with self._written:
            await self._written.wait_for(lambda: self._stored >= target or self._failed())
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """Store what is left and stop the writer."""
        try:
            await self.flush()
        finally:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    async def abandon(self) -> None:
        """Stop the writer now, storing nothing more: the execution was stopped, and the
        next one numbers on from what was stored. Nothing unstored was ever sent."""
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer

    def _failed(self) -> bool:
        return self._failure is not None

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                await self._store.run_events.append(self.run_id, batch, sealed=self._sealed)
            except Exception as exc:  # the run must stop: its events would be lost
                log.exception("could not store the events of run %s", self.run_id)
                self._failure = exc
            else:
                self._stored = batch[-1][0]
                self._hub.published(self.run_id)
            async with self._written:
                self._written.notify_all()
            if self._failure is not None:
                return
