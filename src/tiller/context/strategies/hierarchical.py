"""`hierarchical_summary` : the last hour verbatim, the rest of the
last day as one summary per hour, anything older as one summary per day."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tiller.context.strategies.base import CountTokens, Summarize, Turns
from tiller.context.strategies.text_summary import summary_lines, summary_within
from tiller.messages import Message, TextContent, UserMessage

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


@dataclass(slots=True)
class HierarchicalSummary:
    """Summaries at a coarser grain the older the messages are.

    Time is measured from `now()` (milliseconds since the epoch), by default the
    newest message's timestamp, so the same history always gives the same view.
    Hours and days are UTC calendar hours and days: a bucket's bounds do not move
    as time passes, so its summary stays the same from one request to the next.
    A turn (an assistant message and its tool results) belongs to the time of its
    last message, and times never run backwards along the conversation (each turn
    is at least as late as the one before it), so the buckets follow its order.

    When the last hour alone is over the budget its oldest turns join their hour's
    summary until it fits in `1 - summary_share` of the budget; summaries are kept
    newest first while they fit. Each summary is what `summarize` wrote for the
    bucket or a line per message, at most `max_summary_lines` of them.
    """

    summarize: Summarize | None = None
    now: Callable[[], int] | None = None
    summary_share: float = 0.25
    max_summary_lines: int = 12

    name = "hierarchical_summary"

    async def fit(
        self, history: Sequence[Message], budget: int, count: CountTokens
    ) -> list[Message]:
        turns = Turns.over_budget(history, budget, count)
        if turns is None:
            return list(history)
        if not turns.units:
            return []
        messages, units = turns.messages, turns.units
        times = _unit_times(messages, units)
        now = self.now() if self.now is not None else times[-1]
        # The last hour is verbatim; the newest turn always is (the model answers it).
        first = min(bisect.bisect_right(times, now - HOUR_MS), len(units) - 1)
        recent_total = sum(turns.tokens[first:])
        if recent_total > budget:
            first, recent_total = turns.newest_within(
                first, budget - int(budget * self.summary_share)
            )
        summaries = await self._summaries(
            messages, units[:first], times[:first], now, budget - recent_total, count
        )
        return [*summaries, *turns.join(units[first:])]

    async def _summaries(
        self,
        messages: Sequence[Message],
        units: Sequence[tuple[int, int]],
        times: Sequence[int],
        now: int,
        room: int,
        count: CountTokens,
    ) -> list[Message]:
        """One summary per bucket, made newest first while they fit in `room`."""
        buckets: list[_Bucket] = []
        for (a, b), time in zip(units, times, strict=True):
            grain, size = ("hour", HOUR_MS) if time > now - DAY_MS else ("day", DAY_MS)
            start = time // size * size
            if not buckets or (buckets[-1].grain, buckets[-1].start) != (grain, start):
                buckets.append(_Bucket(grain, start))
            buckets[-1].messages.extend(messages[a:b])
            buckets[-1].time = time
        kept: list[Message] = []
        for bucket in reversed(buckets):
            summary = await self._summary(bucket, room, count)
            if summary is None:
                break
            room -= count(summary)
            kept.append(summary)
        kept.reverse()
        return kept

    async def _summary(self, bucket: _Bucket, room: int, count: CountTokens) -> UserMessage | None:
        covered, lines = summary_lines(bucket.messages)
        header = bucket_header(bucket.grain, bucket.start, covered)
        time = bucket.time
        if self.summarize is not None:
            try:
                text = (await self.summarize(bucket.messages)).strip()
            except Exception:  # a failing summariser falls back to the text summary
                text = ""
            if text:
                message = UserMessage([TextContent(f"{header}\n{text}")], time)
                if count(message) <= room:
                    return message
        return summary_within(header, lines, room, count, time, self.max_summary_lines)


@dataclass(slots=True)
class _Bucket:
    grain: str  # "hour" or "day"
    start: int  # ms, the start of the UTC hour or day
    messages: list[Message] = field(default_factory=list)
    time: int = 0  # of its newest turn: the summary's timestamp


def bucket_header(grain: str, start_ms: int, covered: int) -> str:
    """`[Summary of 5 messages from 2024-05-01 14:00–15:00 UTC]` for an hour,
    `[Summary of 40 messages from 2024-04-29 UTC]` for a day."""
    start = datetime.fromtimestamp(start_ms / 1000, UTC)
    noun = "message" if covered == 1 else "messages"
    if grain == "hour":
        end = datetime.fromtimestamp((start_ms + HOUR_MS) / 1000, UTC)
        span = f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}"
    else:
        span = f"{start:%Y-%m-%d}"
    return f"[Summary of {covered} {noun} from {span} UTC]"


def _unit_times(messages: Sequence[Message], units: Sequence[tuple[int, int]]) -> list[int]:
    """Each turn's time: its latest message, never earlier than the turn before it."""
    times: list[int] = []
    latest = messages[units[0][0]].timestamp if units else 0
    for a, b in units:
        latest = max(latest, *(messages[k].timestamp for k in range(a, b)))
        times.append(latest)
    return times
