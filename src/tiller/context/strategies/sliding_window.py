"""`sliding_window` : drop the oldest turns until the rest fits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tiller.context.strategies.base import (
    CountTokens,
    Turns,
    marker_reserve,
    with_removed_marker,
)
from tiller.messages import Message


@dataclass(slots=True, frozen=True)
class SlidingWindow:
    """The newest whole turns that fit the budget, behind the fixed
    `[Context compacted: N messages removed]` marker. The newest unit is always
    kept (it is what the model answers), as compaction keeps the last user message."""

    name = "sliding_window"

    async def fit(
        self, history: Sequence[Message], budget: int, count: CountTokens
    ) -> list[Message]:
        turns = Turns.over_budget(history, budget, count)
        if turns is None:
            return list(history)
        first = 0
        if sum(turns.tokens) > budget:
            room = budget - marker_reserve(len(turns.messages), count)
            first, _ = turns.newest_within(0, room)
        kept = turns.join(turns.units[first:])
        return with_removed_marker(kept, len(turns.messages) - len(kept), budget, count)
