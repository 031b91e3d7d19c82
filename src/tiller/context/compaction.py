"""Three-level compaction (seed 001): truncate tool outputs, summarise old turns, drop the middle.

Each level is a pure function from messages to a smaller list; the history they
are given is never changed. A tool call and its result are never separated, and
marker texts are fixed so a provider's prompt cache keeps its prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tiller.context.tokens import message_tokens, total_tokens
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.truncation import truncate_head_tail


@dataclass(slots=True, frozen=True)
class ContextConfig:
    max_context_tokens: int
    system_prompt_tokens: int = 0
    tool_output_max_lines: int = 50
    keep_recent: int = 10
    keep_first: int = 2

    @property
    def budget(self) -> int:
        return max(0, self.max_context_tokens - self.system_prompt_tokens)


@dataclass(slots=True, frozen=True)
class Compaction:
    """The outcome of `compact_messages`: the view and which level produced it."""

    messages: list[Message]
    level: int  # 0: unchanged


def compact_messages(messages: list[Message], config: ContextConfig) -> Compaction:
    budget = config.budget
    if total_tokens(messages) <= budget:
        return Compaction(messages, 0)
    compacted = level1_truncate_tool_outputs(messages, config.tool_output_max_lines)
    if total_tokens(compacted) <= budget:
        return Compaction(compacted, 1)
    compacted = level2_summarize_old_turns(compacted, config.keep_recent)
    if total_tokens(compacted) <= budget:
        return Compaction(compacted, 2)
    return Compaction(level3_drop_middle(compacted, config, budget), 3)


def level1_truncate_tool_outputs(messages: list[Message], max_lines: int) -> list[Message]:
    out: list[Message] = []
    for msg in messages:
        if isinstance(msg, ToolResultMessage):
            content = [
                TextContent(truncate_head_tail(b.text, max_lines))
                if isinstance(b, TextContent)
                else b
                for b in msg.content
            ]
            if any(a is not b for a, b in zip(content, msg.content, strict=True)):
                msg = replace(msg, content=content)
        out.append(msg)
    return out


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


def level3_drop_middle(
    messages: list[Message], config: ContextConfig, budget: int
) -> list[Message]:
    n = len(messages)
    first_end = min(config.keep_first, n)
    # Never end the kept head on a call whose results would be dropped.
    while first_end < n and isinstance(messages[first_end], ToolResultMessage):
        first_end += 1
    recent_start = _turn_start(messages, max(0, n - config.keep_recent))
    if first_end >= recent_start:
        return keep_within_budget(messages, budget)
    removed = recent_start - first_end
    marker = UserMessage(
        [TextContent(f"[Context compacted: {removed} messages removed to fit context window]")],
        messages[recent_start].timestamp,
    )
    result = [*messages[:first_end], marker, *messages[recent_start:]]
    if total_tokens(result) > budget:
        return keep_within_budget(result, budget)
    return result


def keep_within_budget(messages: list[Message], budget: int) -> list[Message]:
    """Keep the most recent messages that fit, never starting on an orphaned tool result.

    The marker's own tokens are reserved first, so marker and kept messages together
    fit the budget whenever the marker alone does.
    """
    if total_tokens(messages) <= budget:
        return messages
    reserve = message_tokens(_removed_marker(len(messages), 0))
    remaining = budget - reserve
    start = len(messages)
    for i in range(len(messages) - 1, -1, -1):
        tokens = message_tokens(messages[i])
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
