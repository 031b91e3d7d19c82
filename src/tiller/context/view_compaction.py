"""Deciding when and how to compact a conversation's view, and writing the block.

`compact_view` looks at the view of a history (history + earlier blocks); when
it is over the budget it compacts with the session strategy when one is given,
else with an LLM summary of the span level 3 would drop when a summarizer is
configured, else with the three compaction levels, and records the outcome as a new block.
It returns None when nothing had to change, so compacting an already-compacted
view changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from tiller.context.compaction_levels import (
    ContextBudget,
    compact_messages,
    keep_within_budget,
    level1_truncate_tool_outputs,
    middle_span,
)
from tiller.context.strategies import ContextStrategy
from tiller.context.summary import LLMSummarizer, summary_message
from tiller.context.view import CompactionBlock, ContextView
from tiller.messages import Message, UserMessage
from tiller.models.base import Model


async def compact_view(
    context: ContextView,
    history: Sequence[Message],
    config: ContextBudget,
    *,
    summarizer: LLMSummarizer | None = None,
    model: Model | None = None,
    strategy: ContextStrategy | None = None,
) -> CompactionBlock | None:
    """Compact the view of `history` to `config.budget` tokens; the new block, or None."""
    count = context.tokens
    before = context.view_tokens(history)
    budget = config.budget
    if before <= budget:
        return None
    view = context.view(history)
    pinned = PinnedView(view, newest_user_message(history))
    if strategy is not None:
        return await _by_strategy(context, history, pinned, budget, strategy, before)
    if summarizer is not None and model is not None:
        block = await _summarised(context, history, pinned, config, summarizer, model, before)
        if block is not None:
            return block
    compacted = compact_messages(view, config, count)
    messages = pinned.keep(compacted.messages)
    if compacted.level == 0 or _same(messages, view):
        return None
    return context.record(
        history, messages, f"level{compacted.level}", count=count, tokens_before=before
    )


def newest_user_message(history: Sequence[Message]) -> UserMessage | None:
    """The message the model is answering: compaction never removes it."""
    for message in reversed(history):
        if isinstance(message, UserMessage):
            return message
    return None


class PinnedView:
    """A view and the one message of it that every compaction of it must keep."""

    __slots__ = ("message", "view")

    def __init__(self, view: list[Message], message: Message | None) -> None:
        self.view = view
        self.message = message

    def keep(self, compacted: list[Message]) -> list[Message]:
        """`compacted` with the pinned message put back where it was, if it was dropped."""
        pinned = self.message
        if pinned is None or any(m is pinned for m in compacted):
            return compacted
        position = {id(m): i for i, m in enumerate(self.view)}
        at = position.get(id(pinned))
        if at is None:  # not in the view: nothing to keep
            return compacted
        # Before the first kept message that came after it (markers belong to what follows).
        for j, message in enumerate(compacted):
            if position.get(id(message), -1) > at:
                while j > 0 and id(compacted[j - 1]) not in position:
                    j -= 1
                return [*compacted[:j], pinned, *compacted[j:]]
        return [*compacted, pinned]


async def _summarised(
    context: ContextView,
    history: Sequence[Message],
    pinned: PinnedView,
    config: ContextBudget,
    summarizer: LLMSummarizer,
    model: Model,
    before: int,
) -> CompactionBlock | None:
    """Level 1, then an LLM summary of the middle; None when the model fails (the
    caller falls back to the text levels)."""
    count = context.tokens
    truncated = level1_truncate_tool_outputs(pinned.view, config.tool_output_max_lines)
    if count.total(truncated) <= config.budget:
        return context.record(history, truncated, "level1", count=count, tokens_before=before)
    start, end = middle_span(truncated, config)
    if start >= end:
        return None
    dropped = truncated[start:end]
    try:
        summary = await summarizer.summarize(dropped, model)
    except Exception:  # any failure of the summary model: fall back to text levels
        return None
    stamp = truncated[end].timestamp if end < len(truncated) else truncated[-1].timestamp
    marker = summary_message(summary, len(dropped), stamp)
    compacted = [*truncated[:start], marker, *truncated[end:]]
    if count.total(compacted) > config.budget:
        compacted = keep_within_budget(compacted, config.budget, count)
    compacted = PinnedView(truncated, pinned.message).keep(compacted)
    return context.record(
        history, compacted, "llm_summary", summary=summary, count=count, tokens_before=before
    )


async def _by_strategy(
    context: ContextView,
    history: Sequence[Message],
    pinned: PinnedView,
    budget: int,
    strategy: ContextStrategy,
    before: int,
) -> CompactionBlock | None:
    """The view a session strategy makes, as a block named after the strategy; its
    summary is the text of the summaries it wrote (None when it only dropped)."""
    view = pinned.view
    compacted = pinned.keep(await strategy.fit(view, budget, context.tokens))
    if _same(compacted, view):
        return None
    kept = {id(m) for m in view}
    written = [m.text for m in compacted if id(m) not in kept and not _is_marker(m)]
    return context.record(
        history,
        compacted,
        strategy.name,
        summary="\n\n".join(written) or None,
        count=context.tokens,
        tokens_before=before,
    )


def _is_marker(message: Message) -> bool:
    return isinstance(message, UserMessage) and message.text.startswith("[Context compacted:")


def _same(a: list[Message], b: list[Message]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
