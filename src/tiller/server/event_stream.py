"""A run's events as Server-Sent Events, from any point, across reconnects and restarts.

Each event goes out as `id: SEQ`, `event: TYPE`, `data: JSON`. A client that loses the
connection reconnects with `Last-Event-ID: SEQ` (browsers do it by themselves) or
`?after=SEQ` and gets exactly the events after that one: they are read from the store,
where every event was written before it was first sent, then the live ones as they are
stored. The stream ends after the run's `run_finished` event. A comment line every
`KEEPALIVE_S` seconds keeps idle proxies from closing the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator

from fastapi import Request
from fastapi.responses import StreamingResponse

from tiller.server.event_log import RUN_FINISHED, EventHub
from tiller.server.problems import Problem
from tiller.store import Store
from tiller.store.run_events import StoredEvent

KEEPALIVE_S = 15.0
# The largest event or message number a request may name: the largest a database's
# INTEGER column holds (numbers are compared with such columns).
MAX_NUMBER = 2**31 - 1
PAGE = 500
MEDIA_TYPE = "text/event-stream"


def wants_stream(request: Request) -> bool:
    return MEDIA_TYPE in request.headers.get("accept", "")


def resume_point(request: Request, after: int | None) -> int:
    """Where a stream starts: `?after=`, else `Last-Event-ID`, else the beginning."""
    if after is not None:
        return after
    given = request.headers.get("last-event-id")
    if given is None or not given.strip():
        return 0
    try:
        seq = int(given)
    except ValueError:
        raise Problem(
            "validation", f"Last-Event-ID must be an event number, not {given!r}"
        ) from None
    if not 0 <= seq <= MAX_NUMBER:
        raise Problem("validation", f"Last-Event-ID must be from 0 to {MAX_NUMBER}")
    return seq


def sse_response(
    store: Store, hub: EventHub, run_id: str, after: int, headers: dict[str, str] | None = None
) -> StreamingResponse:
    return StreamingResponse(
        sse_frames(store, hub, run_id, after),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **(headers or {})},
    )


async def sse_frames(store: Store, hub: EventHub, run_id: str, after: int) -> AsyncIterator[bytes]:
    """The run's events as SSE frames, with a keep-alive comment when it is quiet. The
    events stored together go out together, in one write."""
    async for batch in run_event_batches(store, hub, run_id, after, keepalive=True):
        yield (
            b": keep-alive\n\n"
            if batch is None
            else b"".join(frame(event.seq, event.type, event.text) for event in batch)
        )


async def run_events(
    store: Store, hub: EventHub, run_id: str, after: int
) -> AsyncIterator[StoredEvent]:
    """The run's events after `after`, then the live ones, until it finished."""
    async for batch in run_event_batches(store, hub, run_id, after):
        for event in batch or ():
            yield event


async def run_event_batches(
    store: Store, hub: EventHub, run_id: str, after: int, *, keepalive: bool = False
) -> AsyncIterator[list[StoredEvent] | None]:
    """The run's events after `after`, then the live ones, until it finished, in the
    batches they come in (read from the store, or stored together); with `keepalive`, a
    None after every `KEEPALIVE_S` seconds without one."""
    waiter = hub.subscribe(run_id)  # before the first read, so no event slips between
    clock = asyncio.get_running_loop().time
    seq, last_sent = after, clock()
    read = True  # from the store; else what this process handed over, when it follows on
    try:
        while True:
            handed = [e for e in waiter.take() if e.seq > seq]
            if read or (handed and not _follows_on(handed, seq)):
                events = await store.run_events.after(run_id, seq, limit=PAGE)
            else:
                events = handed
            read = False
            if events:
                finished = next(
                    (n for n, event in enumerate(events) if event.type == RUN_FINISHED), None
                )
                yield events if finished is None else events[: finished + 1]
                if finished is not None:
                    return
                seq, last_sent = events[-1].seq, clock()
            waiter.seen = seq
            if len(events) == PAGE or waiter.take_stale():
                read = True
                continue
            if waiter.handed:
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(KEEPALIVE_S - (clock() - last_sent)):
                    await waiter.wait()
            read = waiter.take_stale()
            if keepalive and clock() - last_sent >= KEEPALIVE_S:
                last_sent = clock()
                yield None
    finally:
        hub.unsubscribe(run_id, waiter)


def frame(seq: int, kind: str, data: str) -> bytes:
    """One SSE frame; `data` is the event's data as JSON text (one line)."""
    return f"id: {seq}\nevent: {kind}\ndata: {data}\n\n".encode()


def _follows_on(events: list[StoredEvent], seq: int) -> bool:
    """Whether `events` are numbered on from `seq` without a gap."""
    return events[0].seq == seq + 1 and all(
        b.seq == a.seq + 1 for a, b in itertools.pairwise(events)
    )
