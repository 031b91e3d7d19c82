"""`sliding_window_with_summary` : the recent messages in full, the
older ones as one summary message before them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tiller.context.strategies.base import CountTokens, Summarize, Turns
from tiller.context.strategies.text_summary import summary_lines, summary_within
from tiller.context.summary import SUMMARY_MARKER, summary_message
from tiller.messages import Message, UserMessage


@dataclass(slots=True)
class SlidingWindowWithSummary:
    """Keep the last `recent_messages` (moved back so no turn is split), summarise the rest.

    The summary is `SUMMARY_MARKER` (`[Context summary of N earlier messages]`) and
    either what `summarize` wrote or a deterministic line per message (the compaction
    level 2 style), newest lines first when they do not all fit. When the recent
    messages alone are over the budget, the oldest of them move into the summary
    until they fit in `1 - summary_share` of it.
    """

    recent_messages: int = 10
    summarize: Summarize | None = None
    summary_share: float = 0.25
    max_summary_lines: int = 60

    name = "sliding_window_with_summary"

    async def fit(
        self, history: Sequence[Message], budget: int, count: CountTokens
    ) -> list[Message]:
        turns = Turns.over_budget(history, budget, count)
        if turns is None:
            return list(history)
        if not turns.units:
            return []
        units = turns.units
        boundary = max(0, len(turns.messages) - self.recent_messages)
        first = next(u for u, (_, end) in enumerate(units) if end > boundary or u == len(units) - 1)
        recent_total = sum(turns.tokens[first:])
        if recent_total > budget:
            first, recent_total = turns.newest_within(
                first, budget - int(budget * self.summary_share)
            )
        recent = turns.join(units[first:])
        older = turns.join(units[:first])
        if not older:
            return recent
        summary = await self._summary(older, budget - recent_total, count)
        return recent if summary is None else [summary, *recent]

    async def _summary(
        self, older: list[Message], room: int, count: CountTokens
    ) -> UserMessage | None:
        covered, lines = summary_lines(older)
        stamp = older[-1].timestamp
        if self.summarize is not None:
            try:
                text = (await self.summarize(older)).strip()
            except Exception:  # a failing summariser falls back to the text summary
                text = ""
            if text:
                message = summary_message(text, covered, stamp)
                if count(message) <= room:
                    return message
        header = SUMMARY_MARKER.format(count=covered)
        return summary_within(header, lines, room, count, stamp, self.max_summary_lines)
