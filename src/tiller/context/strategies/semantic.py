"""`semantic_compression` : keep the turns that matter most to the
current topic and the most recent ones, in their original order."""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from tiller.context.strategies.base import (
    CountTokens,
    Turns,
    marker_reserve,
    with_removed_marker,
)
from tiller.context.strategies.message_relevance import LexicalRelevance, RelevanceScorer
from tiller.errors import UsageError
from tiller.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage


@dataclass(slots=True)
class SemanticCompression:
    """Score each turn `relevance * 0.7 + recency * 0.3`, keep the best that fit.

    Relevance is `scorer(latest user message, turn texts)`; recency is the turn's
    place in the conversation, 0 for the oldest and 1 for the newest (timestamps of
    a burst of tool calls are nearly equal, so position is the steadier measure).
    The newest turn is always kept, like the system message: it is what
    the model answers, and Tiller sends the system prompt outside the history. Turns
    that do not fit are skipped and smaller ones after them still considered; the
    kept ones go back into chronological order behind a removed-messages marker.
    Each message adds at most `max_chars_per_message` characters to its turn's text,
    so scoring stays cheap on huge tool outputs.
    """

    scorer: RelevanceScorer = field(default_factory=LexicalRelevance)
    relevance_weight: float = 0.7
    recency_weight: float = 0.3
    max_chars_per_message: int = 10_000

    name = "semantic_compression"

    async def fit(
        self, history: Sequence[Message], budget: int, count: CountTokens
    ) -> list[Message]:
        turns = Turns.over_budget(history, budget, count)
        if turns is None:
            return list(history)
        messages, units, tokens = turns.messages, turns.units, turns.tokens
        if not units:
            return []
        if sum(tokens) <= budget:
            return turns.join(units)
        scores = await self.scores(messages, units)
        newest = len(units) - 1
        order = sorted(range(newest), key=lambda u: (-scores[u], -u))
        room = budget - marker_reserve(len(messages), count)
        keep = [newest]
        used = tokens[newest]
        for u in order:
            if used + tokens[u] <= room:
                keep.append(u)
                used += tokens[u]
        kept = turns.join([units[u] for u in sorted(keep)])
        return with_removed_marker(kept, len(messages) - len(kept), budget, count)

    async def scores(
        self, messages: Sequence[Message], units: Sequence[tuple[int, int]]
    ) -> list[float]:
        """The score of every unit but the newest (which is always kept)."""
        candidates = units[:-1]
        query = latest_user_text(messages)
        texts = ["\n".join(self._text(messages[k]) for k in range(a, b)) for a, b in candidates]
        result = self.scorer(query, texts)
        if inspect.isawaitable(result):
            result = await result
        relevance = list(result)
        if len(relevance) != len(texts):
            raise UsageError(
                f"the relevance scorer returned {len(relevance)} scores for {len(texts)} "
                "messages; it must return one score in [0, 1] per document it is given"
            )
        last = max(1, len(units) - 1)
        return [
            self.relevance_weight * _unit_interval(r) + self.recency_weight * (u / last)
            for u, r in enumerate(relevance)
        ]

    def _text(self, message: Message) -> str:
        if isinstance(message, AssistantMessage):
            parts = [message.text]
            for block in message.content:
                if isinstance(block, ToolCall):
                    args = block.invalid_arguments or json.dumps(
                        block.arguments, ensure_ascii=False
                    )
                    parts.append(f"{block.name} {args}")
            text = " ".join(parts)
        elif isinstance(message, UserMessage | ToolResultMessage):
            text = message.text
        else:
            text = ""
        return text[: self.max_chars_per_message]


def latest_user_text(messages: Sequence[Message]) -> str:
    """The current topic: the text of the latest user message."""
    for message in reversed(messages):
        if isinstance(message, UserMessage) and message.text.strip():
            return message.text
    return ""


def _unit_interval(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, float(value)))
