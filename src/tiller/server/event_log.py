"""A run's events: numbered, stored, and only then sent.

`RunEventLog` takes the run's events as the loop emits them (synchronously), numbers
them, and a writer task stores them in batches: every event waiting when the writer
comes round goes in one transaction, so a burst of text deltas costs one write. Only
after a batch is committed does `EventHub` tell the run's subscribers, who read what
they have not seen from the store: a client never sees an event the store could lose.

One `EventWriter` per process stores every executing run's events and new messages,
all that waits in one transaction of a few statements (one numbers the messages of
every session, one stores them, one stores the events). `EventHub` wakes the
subscribers of this process at once; for runs executing in another process (or not
yet), it looks at the store every `poll_interval` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

from tiller.codec import dumps
from tiller.events import Event
from tiller.store import Store
from tiller.store.documents import EncodedJSON
from tiller.store.errors import InvalidDocumentError
from tiller.store.run_events import StoredEvent

logger = logging.getLogger(__name__)

# The last event of every run, after which its stream ends: {"status": ..., ...}.
RUN_FINISHED = "run_finished"


class Subscription:
    """One reader of a run's events: woken when new ones are stored, and handed those
    this process stored (so it need not read them back)."""

    def __init__(self) -> None:
        self.woken = asyncio.Event()
        self.handed: list[StoredEvent] = []
        self.seen = 0  # the number of the last event the reader has
        self.stale = False  # the store has events it was not handed: read them

    def take(self) -> list[StoredEvent]:
        handed, self.handed = self.handed, []
        return handed

    async def wait(self) -> None:
        """Until the run has new events (in the store, or handed over)."""
        await self.woken.wait()
        self.woken.clear()

    def take_stale(self) -> bool:
        stale, self.stale = self.stale, False
        return stale


LastSeqs = Callable[[list[str]], Awaitable[dict[str, int]]]


class EventHub:
    """Who waits for which run's events, in this process.

    A run executing in this process hands every event it stores to its readers. For the
    others (queued, or executing in another process) one poller looks at the store every
    `poll_interval` seconds, with one query for all of them (`last_seqs`), and wakes
    the readers whose run has new events: a thousand streams waiting for their runs to
    start cost one read a second, not a thousand."""

    def __init__(self, last_seqs: LastSeqs, poll_interval: float = 1.0) -> None:
        self.poll_interval = poll_interval
        self._last_seqs = last_seqs
        self._waiters: dict[str, set[Subscription]] = defaultdict(set)
        # Runs executing in this process: every event they store is handed to the
        # subscribers, so there is no need to look at the store for them.
        self.executing: set[str] = set()
        self._poller: asyncio.Task[None] | None = None

    def published(self, run_id: str, stored: list[StoredEvent] | None = None) -> None:
        """New events of `run_id` are stored (`stored`, when this process stored them and
        hands them over; else its readers read the store): wake its subscribers."""
        for waiter in self._waiters.get(run_id, ()):
            if stored:
                waiter.handed.extend(stored)
            else:
                waiter.stale = True
            waiter.woken.set()

    def subscribe(self, run_id: str) -> Subscription:
        waiter = Subscription()
        self._waiters[run_id].add(waiter)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll(), name="run events poller")
        return waiter

    def unsubscribe(self, run_id: str, waiter: Subscription) -> None:
        waiters = self._waiters.get(run_id)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiters[run_id]

    async def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller

    async def _poll(self) -> None:
        """Wake the readers of runs not executing here whose runs have new events; ends
        when nobody reads."""
        while self._waiters:
            await asyncio.sleep(self.poll_interval)
            elsewhere = [run_id for run_id in self._waiters if run_id not in self.executing]
            if not elsewhere:
                continue
            try:
                last = await self._last_seqs(elsewhere)
            except Exception:  # the next round tries again; the readers wait meanwhile
                logger.exception("could not look for new run events")
                continue
            for run_id, seq in last.items():
                for waiter in self._waiters.get(run_id, ()):
                    if seq > waiter.seen:
                        waiter.stale = True
                        waiter.woken.set()


class EventWriter:
    """Stores the events and new messages of every run executing in this process,
    together: whatever is waiting when it comes round goes in one transaction, so many
    runs at once cost one write per round instead of one per run. A round that fails is
    tried again part by part, so one run's failure stops that run only."""

    def __init__(self, store: Store, hub: EventHub) -> None:
        self._store = store
        self._hub = hub
        self._waiting: dict[RunEventLog, None] = {}  # in the order they asked
        self._wake = asyncio.Event()
        self._settled = asyncio.Condition()
        self._in_flight: set[RunEventLog] = set()
        self._task: asyncio.Task[None] | None = None
        self._messages: list[tuple[str, list[EncodedJSON], str, asyncio.Future[None]]] = []

    def wake(self, log: RunEventLog) -> None:
        self._waiting[log] = None
        self._start()

    async def append_messages(
        self, session_id: str, messages: list[EncodedJSON], run_id: str
    ) -> None:
        """Add a run's new messages to its session's history, in the next round; returns
        once they are stored."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._messages.append((session_id, messages, run_id, done))
        self._start()
        await done

    def _start(self) -> None:
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="run events writer")

    def forget(self, log: RunEventLog) -> None:
        self._waiting.pop(log, None)

    def opened(self, run_id: str) -> None:
        self._hub.executing.add(run_id)

    def closed(self, run_id: str) -> None:
        self._hub.executing.discard(run_id)

    async def settled(self, log: RunEventLog) -> None:
        """Until no batch of `log` is being written."""
        async with self._settled:
            await self._settled.wait_for(lambda: log not in self._in_flight)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            logs = list(self._waiting)
            self._waiting.clear()
            messages, self._messages = self._messages, []
            batches = [(log, log.take()) for log in logs]
            batches = [(log, batch) for log, batch in batches if batch]
            if not batches and not messages:
                continue
            self._in_flight = {log for log, _ in batches}
            try:
                await self._store_all(messages, batches)
            finally:
                self._in_flight = set()
                async with self._settled:
                    self._settled.notify_all()

    async def _store_all(
        self,
        messages: list[tuple[str, list[EncodedJSON], str, asyncio.Future[None]]],
        batches: list[tuple[RunEventLog, list[Pending]]],
    ) -> None:
        sessions = self._store.sessions
        try:
            # A few statements, however many runs, sent together.
            add_messages = sessions.appending([(s, added, run) for s, added, run, _ in messages])
            add_events = self._store.run_events.appending(
                [(log.run_id, batch, log.sealed) for log, batch in batches]
            )
            await self._store.database.write_batch(
                lambda conn: (add_messages(conn), add_events(conn))
            )
        except Exception:
            for session_id, added, run_id, done in messages:  # one at a time
                try:
                    await sessions.append_messages(session_id, added, run_id=run_id)
                except Exception as exc:
                    if not done.done():
                        done.set_exception(exc)
                else:
                    if not done.done():
                        done.set_result(None)
            for log, batch in batches:  # one at a time: only the failing ones fail
                try:
                    await self._store.run_events.append(log.run_id, batch, sealed=log.sealed)
                except Exception as exc:  # the run must stop: its events would be lost
                    logger.exception("could not store the events of run %s", log.run_id)
                    await log.failed(exc)
                else:
                    await self._stored(log, batch)
            return
        for *_, done in messages:
            if not done.done():
                done.set_result(None)
        for log, batch in batches:
            await self._stored(log, batch)

    async def _stored(self, log: RunEventLog, batch: list[Pending]) -> None:
        await log.stored(batch[-1][0])
        now = self._store.now()
        handed = [StoredEvent(log.run_id, seq, kind, data, now) for seq, kind, data in batch]
        self._hub.published(log.run_id, handed)


# An event to store: (seq, type, its data already encoded, as it is stored and sent).
Pending = tuple[int, str, EncodedJSON]


class RunEventLog:
    """The events of one run being executed: `emit` numbers them, the process's
    `EventWriter` stores them."""

    def __init__(
        self, writer: EventWriter, run_id: str, last_seq: int, *, sealed: bool = False
    ) -> None:
        self._writer = writer
        self.sealed = sealed  # a sensitive session's: stored sealed
        self.run_id = run_id
        self._seq = last_seq
        self._pending: list[Pending] = []
        self._stored = last_seq
        self._written = asyncio.Condition()
        self._failure: BaseException | None = None
        self._abandoned = False
        writer.opened(run_id)

    @property
    def last_seq(self) -> int:
        return self._seq

    def emit(self, event: Event) -> None:
        """Number `event` and queue it for the writer (the loop's event sink)."""
        self.record(event.type, event)

    def record(self, kind: str, data: Event | dict[str, Any]) -> None:
        if self._failure is not None:
            raise RuntimeError(f"the events of run {self.run_id} cannot be stored") from (
                self._failure
            )
        try:
            text = encoded(data, f"a {kind} event")  # once: stored and sent as this text
        except InvalidDocumentError as exc:  # the run stops, as if the store refused it
            self._failure = exc
            raise
        self._seq += 1
        self._pending.append((self._seq, kind, text))
        if not self._abandoned:
            self._writer.wake(self)

    def take(self) -> list[Pending]:
        """The events waiting to be stored (the writer's)."""
        batch, self._pending = self._pending, []
        return [] if self._abandoned else batch

    async def stored(self, seq: int) -> None:
        async with self._written:
            self._stored = seq
            self._written.notify_all()

    async def failed(self, exc: BaseException) -> None:
        async with self._written:
            self._failure = exc
            self._written.notify_all()

    def check(self) -> None:
        """Raise what storing the events failed with, if it did."""
        if self._failure is not None:
            raise self._failure

    async def flush(self) -> None:
        """Until every event emitted so far is stored (or storing them failed)."""
        target = self._seq
        async with self._written:
            await self._written.wait_for(lambda: self._stored >= target or self._failed())
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """Store what is left."""
        try:
            await self.flush()
        finally:
            self._writer.closed(self.run_id)

    async def abandon(self) -> None:
        """Store nothing more: the execution was stopped, and the next one numbers on
        from what was stored (once a batch being written now is in). Nothing unstored was
        ever sent."""
        self._abandoned = True
        self._pending = []
        self._writer.forget(self)
        self._writer.closed(self.run_id)
        await self._writer.settled(self)

    def _failed(self) -> bool:
        return self._failure is not None


def encoded(value: Any, what: str) -> EncodedJSON:
    """`value` (a message, an event, or JSON data) as the JSON text it is stored and sent
    as, encoded once; an `InvalidDocumentError` naming `what` if it is not JSON data (a
    NaN is not: the store refuses it too)."""
    try:
        return EncodedJSON(dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidDocumentError(f"{what} is not JSON data: {exc}") from None
