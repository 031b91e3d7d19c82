"""Three-level compaction: truncate tool outputs, summarise old turns, drop the middle.

Each level is a pure function from messages to a smaller list; the history they
are given is never changed. A tool call and its result are never separated, and
marker texts are fixed so a provider's prompt cache keeps its prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from tiller.context.summary import LLMSummarizer
from tiller.context.token_estimates import message_tokens
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultContent,
    ToolResultMessage,
    UserMessage,
)
from tiller.truncation import truncate_head_tail

CountMessage = Callable[[Message], int]


def _total(messages: list[Message], count: CountMessage) -> int:
    return sum(map(count, messages))


def _fits(messages: Iterable[Message], count: CountMessage, budget: int) -> bool:
    """Whether `messages` fit `budget`, counting only until they are over it: a long
    history far over its budget is decided in the first few hundred messages."""
    total = 0
    for message in messages:
        total += count(message)
        if total > budget:
            return False
    return True


@dataclass(slots=True, frozen=True)
class ContextBudget:
    """The token budget for what is sent to the model, and how compaction keeps within it.

    `max_context_tokens` less `system_prompt_tokens` is the budget for messages.
    Over it, level 1 cuts tool outputs to `tool_output_max_lines`, level 2
    shortens old turns, level 3 drops the middle of the history, always keeping
    the first `keep_first` and the last `keep_recent` messages.
    """

    max_context_tokens: int
    system_prompt_tokens: int = 0
    tool_output_max_lines: int = 50
    keep_recent: int = 10
    keep_first: int = 2
    # When set, the span level 3 would drop is summarised by a model instead
    # (`tiller.context.summary.LLMSummarizer`), falling back to levels 2-3 on failure.
    summarizer: LLMSummarizer | None = None

    @property
    def budget(self) -> int:
        return max(0, self.max_context_tokens - self.system_prompt_tokens)


@dataclass(slots=True, frozen=True)
class Compaction:
    """The outcome of `compact_messages`: the view and which level produced it."""

    messages: list[Message]
    level: int  # 0: unchanged


def compact_messages(
    messages: list[Message], config: ContextBudget, count: CountMessage = message_tokens
) -> Compaction:
    """The smallest level that fits the budget. `count` gives a message's tokens
    (pass a `MessageTokens` so each message is counted once)."""
    budget = config.budget
    max_lines = config.tool_output_max_lines
    if _fits(messages, count, budget):
        return Compaction(messages, 0)
    if _fits((_truncate_message(m, max_lines) for m in messages), count, budget):
        return Compaction(level1_truncate_tool_outputs(messages, max_lines), 1)
    # Level 2 keeps only the recent tool results, so only those need level 1: the same
    # view as summarising the fully truncated history, without truncating what it drops.
    keep_recent = config.keep_recent
    boundary = _turn_start(messages, len(messages) - keep_recent)
    if len(messages) <= keep_recent:
        boundary = 0
    truncated = [
        *messages[:boundary],
        *level1_truncate_tool_outputs(messages[boundary:], max_lines),
    ]
    compacted = level2_summarize_old_turns(truncated, keep_recent)
    if _fits(compacted, count, budget):
        return Compaction(compacted, 2)
    return Compaction(level3_drop_middle(compacted, config, budget, count), 3)


def level1_truncate_tool_outputs(messages: list[Message], max_lines: int) -> list[Message]:
    return [_truncate_message(m, max_lines) for m in messages]


def _truncate_message(message: Message, max_lines: int) -> Message:
    """A tool result with its texts cut to `max_lines`; any other message as it is."""
    if not isinstance(message, ToolResultMessage):
        return message
    content = [_truncated(b, max_lines) for b in message.content]
    if any(a is not b for a, b in zip(content, message.content, strict=True)):
        return replace(message, content=content)
    return message


def _truncated(block: ToolResultContent, max_lines: int) -> ToolResultContent:
    """The block with its text cut to `max_lines`; the same block when nothing was cut,
    so compacting twice changes nothing, not even object identity."""
    if not isinstance(block, TextContent):
        return block
    text = truncate_head_tail(block.text, max_lines)
    return block if text == block.text else TextContent(text)


def _turn_start(messages: list[Message], index: int) -> int:
    """Move `index` back so it does not fall between a tool call and its results."""
    while 0 < index < len(messages) and isinstance(messages[index], ToolResultMessage):
        index -= 1
    return index


def level2_summarize_old_turns(messages: list[Message], keep_recent: int) -> list[Message]:
    if len(messages) <= keep_recent:
        return messages
    boundary = _turn_start(messages, len(messages) - keep_recent)
    result: list[Message] = []
    i = 0
    while i < boundary:
        msg = messages[i]
        if isinstance(msg, AssistantMessage):
            short_texts = [
                b.text for b in msg.content if isinstance(b, TextContent) and len(b.text) <= 200
            ]
            tool_count = sum(1 for b in msg.content if isinstance(b, ToolCall))
            if short_texts:
                summary = " ".join(short_texts)
            elif tool_count > 0:
                summary = f"[Assistant used {tool_count} tool(s)]"
            else:
                summary = "[Assistant response]"
            result.append(UserMessage([TextContent(f"[Summary] {summary}")], msg.timestamp))
            i += 1
            while i < boundary and isinstance(messages[i], ToolResultMessage):
                i += 1
            continue
        if not isinstance(msg, ToolResultMessage):
            result.append(msg)
        i += 1
    result.extend(messages[boundary:])
    return result


def middle_span(messages: list[Message], config: ContextBudget) -> tuple[int, int]:
    """The span level 3 drops: after the first `keep_first` messages, before the last
    `keep_recent`, moved so no tool call is parted from its results. Empty when the
    two ends meet."""
    n = len(messages)
    first_end = min(config.keep_first, n)
    # Never end the kept head on a call whose results would be dropped.
    while first_end < n and isinstance(messages[first_end], ToolResultMessage):
        first_end += 1
    recent_start = _turn_start(messages, max(0, n - config.keep_recent))
    return first_end, max(first_end, recent_start)


def level3_drop_middle(
    messages: list[Message],
    config: ContextBudget,
    budget: int,
    count: CountMessage = message_tokens,
) -> list[Message]:
    first_end, recent_start = middle_span(messages, config)
    if first_end >= recent_start:
        return keep_within_budget(messages, budget, count)
    removed = recent_start - first_end
    stamp = messages[recent_start].timestamp if recent_start < len(messages) else 0
    marker = UserMessage(
        [TextContent(f"[Context compacted: {removed} messages removed to fit context window]")],
        stamp,
    )
    result = [*messages[:first_end], marker, *messages[recent_start:]]
    if _total(result, count) > budget:
        return keep_within_budget(result, budget, count)
    return result


def keep_within_budget(
    messages: list[Message], budget: int, count: CountMessage = message_tokens
) -> list[Message]:
    """Keep the most recent messages that fit, never starting on an orphaned tool result.

    The marker's own tokens are reserved first, so marker and kept messages together
    fit the budget whenever the marker alone does.
    """
    if _fits(messages, count, budget):
        return messages
    reserve = count(_removed_marker(len(messages), 0))
    remaining = budget - reserve
    start = len(messages)
    for i in range(len(messages) - 1, -1, -1):
        tokens = count(messages[i])
        if tokens > remaining:
            break
        remaining -= tokens
        start = i
    while start < len(messages) and isinstance(messages[start], ToolResultMessage):
        start += 1
    kept = messages[start:]
    stamp = kept[0].timestamp if kept else messages[-1].timestamp
    return [_removed_marker(start, stamp), *kept]


def _removed_marker(removed: int, timestamp: int) -> UserMessage:
    return UserMessage([TextContent(f"[Context compacted: {removed} messages removed]")], timestamp)
