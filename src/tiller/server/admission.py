"""How many runs this process executes at once: as many as its event loop keeps up with.

A run waiting for a model's answer costs the loop nothing; a run whose model and tools
answer at once (a local model, a cache, a test) keeps it busy. A fixed limit is wrong
for one or the other: high, a burst of busy runs makes every event, every request and
every health check wait behind all of them; low, runs that wait on a network queue for
no reason. So the limit follows the loop's lag, measured by a timer that should fire
every `probe_s` seconds, taken over a window of `WINDOW` probes: while the timer is
late by more than `target_lag_s`, the limit comes down by a fifth; while it is well on
time and runs are waiting, it goes up by a tenth. Runs that are executing are never
stopped; runs beyond the limit wait their turn, in order, still queued in the store. A
run waiting for a person's approval gives its place up meanwhile, and takes it back at
once when the decision comes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass

# The timer's period and the lag beyond which the loop counts as behind, in seconds
# (at 10 ms, events waited 26 ms at the 99th percentile under the service benchmark's
# load, against 16 ms at 5 ms, for as many runs per second).
PROBE_S = 0.02
TARGET_LAG_S = 0.005
WINDOW = 5  # probes the limit is decided on, so one collector pause is no overload
LEAST = 4  # never fewer runs at once than this


@dataclass(slots=True)
class Place:
    """A run's place among those executing; `held` while it counts."""

    held: bool = True


class Admission:
    """The gate a run passes before it executes in this process."""

    def __init__(
        self,
        most: int,
        *,
        least: int = LEAST,
        probe_s: float = PROBE_S,
        target_lag_s: float = TARGET_LAG_S,
    ) -> None:
        if not 1 <= least <= most:
            raise ValueError(f"need 1 <= least ({least}) <= most ({most})")
        self.most = most
        self.least = least
        self.limit = min(most, max(least, 16))
        self.probe_s = probe_s
        self.target_lag_s = target_lag_s
        self.running = 0
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._probe: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @contextlib.asynccontextmanager
    async def admitted(self) -> AsyncIterator[Place]:
        """Wait for a place (in order), hold it for the block."""
        await self._enter()
        place = Place()
        try:
            yield place
        finally:
            if place.held:
                self.running -= 1
                self._admit()

    @contextlib.asynccontextmanager
    async def released(self, place: Place) -> AsyncIterator[None]:
        """Give `place` up for the block (a run waiting for a person costs the loop
        nothing), then take it back at once, even beyond the limit: a run a person has
        just decided on goes on without waiting behind the runs not yet started."""
        place.held = False
        self.running -= 1
        self._admit()
        yield  # a block that raises (a stopping process) takes no place back
        self.running += 1
        place.held = True

    def stop(self) -> None:
        if self._probe is not None:
            self._probe.cancel()

    async def _enter(self) -> None:
        if self._probe is None or self._probe.done():
            self._probe = asyncio.create_task(self._watch(), name="admission probe")
        if self.running < self.limit and not self._waiting:
            self.running += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn  # `_admit` counts us in before it wakes us
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # admitted, then cancelled: give it back
                self.running -= 1
                self._admit()
            else:  # still in line, unless `_admit` already passed over it
                with contextlib.suppress(ValueError):
                    self._waiting.remove(turn)
            raise

    def _admit(self) -> None:
        while self._waiting and self.running < self.limit:
            turn = self._waiting.popleft()
            if not turn.done():
                self.running += 1
                turn.set_result(None)

    async def _watch(self) -> None:
        """Probe while runs execute or wait (an idle process is not woken for nothing)."""
        loop = asyncio.get_running_loop()
        while self.running or self._waiting:
            worst = 0.0  # the largest lag of a window of probes
            for _ in range(WINDOW):
                started = loop.time()
                await asyncio.sleep(self.probe_s)
                worst = max(worst, loop.time() - started - self.probe_s)
            self.adjust(worst)

    def adjust(self, lag: float) -> None:
        """Take the loop's largest lag (seconds) over a window of probes."""
        if lag > self.target_lag_s:
            self.limit = max(self.least, self.limit - max(1, self.limit // 5))
        elif lag < self.target_lag_s / 2 and self._waiting and self.running >= self.limit:
            self.limit = min(self.most, self.limit + max(1, self.limit // 10))
            self._admit()
