"""What every session strategy shares: the protocol, turn units, budgets and markers.

A session strategy decides which messages of a conversation are
sent to the model when the whole history is over the token budget. It works on
*units*: an assistant message together with the tool results that follow it is
one unit, every other message is a unit of its own. Keeping or dropping whole
units is what guarantees that a tool call is never parted from its result.

Tiller keeps the system prompt outside the history (`LoopConfig.system_prompt`)
and sends it with every request, so every strategy keeps it by construction; the
budget a strategy is given is what is left for messages after it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tiller.messages import (
    AssistantMessage,
    ExtensionMessage,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

CountTokens = Callable[[Message], int]
"""Tokens of one message: `tiller.context.message_tokens` or a `MessageTokens`."""

Summarize = Callable[[Sequence[Message]], Awaitable[str]]
"""Writes a summary of some messages (for example with a model); the strategies
fall back to their deterministic text summary when it raises."""


@runtime_checkable
class ContextStrategy(Protocol):
    """Maps a history to the messages sent to the model, within a token budget.

    `fit` returns the history unchanged (as a new list) when it fits `budget`.
    Otherwise it returns kept messages of the history (the same objects, in
    their order) and possibly summary or marker messages it made, such that:
    a tool call and its result are kept or dropped together; the total fits
    `budget` whenever the newest unit alone does (otherwise the newest unit
    alone, the least a model can answer); the same input gives the same output.
    """

    name: str

    async def fit(
        self, history: Sequence[Message], budget: int, count: CountTokens
    ) -> list[Message]: ...


def model_messages(history: Sequence[Message]) -> list[Message]:
    """The messages a model sees: extension messages are for people only, so a
    strategy that has to cut spends no budget on them."""
    return [m for m in history if not isinstance(m, ExtensionMessage)]


def turn_units(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Spans [start, end) of `messages`: an assistant message with the tool results
    after it, or one other message. A tool result with no assistant message before
    it (an orphan in the input) is left out, so no strategy can send one."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(messages)
    while i < n:
        end = i + 1
        if isinstance(messages[i], AssistantMessage):
            while end < n and isinstance(messages[end], ToolResultMessage):
                end += 1
        elif isinstance(messages[i], ToolResultMessage):
            i = end
            continue
        spans.append((i, end))
        i = end
    return spans


def join_units(messages: Sequence[Message], units: Sequence[tuple[int, int]]) -> list[Message]:
    """The messages of `units`, in order."""
    return [messages[k] for a, b in units for k in range(a, b)]


@dataclass(slots=True)
class Turns:
    """A history over its budget, as the turn units a strategy keeps or drops."""

    messages: list[Message]  # what a model sees of the history
    units: list[tuple[int, int]]  # spans of `messages`, oldest first
    tokens: list[int]  # of each unit

    @classmethod
    def over_budget(
        cls, history: Sequence[Message], budget: int, count: CountTokens
    ) -> Turns | None:
        """None when `history` fits `budget` as it is; otherwise its turns."""
        if sum(map(count, history)) <= budget:
            return None
        messages = model_messages(history)
        units = turn_units(messages)
        tokens = [sum(count(messages[k]) for k in range(a, b)) for a, b in units]
        return cls(messages, units, tokens)

    def join(self, units: Sequence[tuple[int, int]]) -> list[Message]:
        return join_units(self.messages, units)

    def newest_within(self, first: int, room: int) -> tuple[int, int]:
        """Move `first` (the oldest unit kept) forward until the units from it on fit
        `room`, keeping at least the newest; (first, their tokens)."""
        total = sum(self.tokens[first:])
        while first < len(self.units) - 1 and total > room:
            total -= self.tokens[first]
            first += 1
        return first, total


def text_tokens(count: CountTokens) -> Callable[[str], int]:
    """Tokens of a piece of text, as `count` would see it inside a message.

    A `MessageTokens` counts text directly; for a plain message counter the text
    is measured as a user message minus an empty one's overhead.
    """
    direct = getattr(count, "text", None)
    if callable(direct):
        return lambda text: int(direct(text))
    overhead = count(UserMessage([]))
    return lambda text: count(UserMessage([TextContent(text)])) - overhead


def removed_marker(removed: int, timestamp: int) -> UserMessage:
    """The fixed marker for messages left out (the same text `keep_within_budget`
    writes, so views made by either read alike)."""
    return UserMessage([TextContent(f"[Context compacted: {removed} messages removed]")], timestamp)


def with_removed_marker(
    kept: list[Message], removed: int, budget: int, count: CountTokens
) -> list[Message]:
    """`kept` behind a marker saying `removed` messages were left out, when there is
    room for it. The marker also keeps the view starting with a user message,
    which some providers require."""
    if removed <= 0 or not kept:
        return kept
    marker = removed_marker(removed, kept[0].timestamp)
    if sum(map(count, kept)) + count(marker) > budget:
        return kept
    return [marker, *kept]


def marker_reserve(removed_at_most: int, count: CountTokens) -> int:
    """Tokens to set aside for a `removed_marker` of up to `removed_at_most` messages."""
    return count(removed_marker(removed_at_most, 0))
