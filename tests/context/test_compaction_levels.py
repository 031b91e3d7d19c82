"""The three compaction levels and token estimates (issue "Context management" completes this)."""

from __future__ import annotations

from tiller.context import (
    ContextBudget,
    compact_messages,
    content_tokens,
    estimate_tokens,
    level2_summarize_old_turns,
    message_tokens,
    total_tokens,
    truncate_head_tail,
)
from tiller.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def test_estimates_are_about_four_bytes_per_token() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("é") == 1  # two UTF-8 bytes
    assert content_tokens([ImageContent("AA==", "image/png")]) == 85
    assert content_tokens([ToolCall("c", "name", {})]) == 1 + 1 + 8
    assert message_tokens(UserMessage.of("abcd")) == 5
    assert message_tokens(ToolResultMessage("c", "tool", [TextContent("abcd")])) == 1 + 1 + 8


def test_truncate_head_tail_keeps_both_ends() -> None:
    text = "\n".join(str(i) for i in range(10))
    assert truncate_head_tail(text, 10) == text
    assert truncate_head_tail(text, 4) == "0\n1\n\n[... 6 lines truncated ...]\n\n8\n9"


def turns(n: int, size: int = 400) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out.append(UserMessage.of(f"q{i} " + "x" * size))
        out.append(AssistantMessage([ToolCall(f"c{i}", "f", {})], "tool_use"))
        out.append(ToolResultMessage(f"c{i}", "f", [TextContent("\n".join(["line"] * 200))]))
        out.append(AssistantMessage([TextContent(f"a{i}")], "stop"))
    return out


def test_level2_never_leaves_a_result_without_its_call() -> None:
    messages = turns(5)
    for keep in range(1, len(messages)):
        result = level2_summarize_old_turns(messages, keep)
        calls = {b.id for m in result if isinstance(m, AssistantMessage) for b in m.tool_calls}
        results = {m.tool_call_id for m in result if isinstance(m, ToolResultMessage)}
        assert results <= calls


def test_each_level_is_tried_in_turn() -> None:
    messages = turns(6)
    full = total_tokens(messages)
    assert compact_messages(messages, ContextBudget(full)).level == 0
    level1 = compact_messages(messages, ContextBudget(full - 10, tool_output_max_lines=10))
    assert level1.level == 1
    assert total_tokens(level1.messages) <= full - 10
    tight = compact_messages(messages, ContextBudget(700, keep_recent=4, keep_first=1))
    assert tight.level == 3
    assert total_tokens(tight.messages) <= 700 + 20
    # Compacting again changes nothing.
    again = compact_messages(tight.messages, ContextBudget(700 + 20, keep_recent=4, keep_first=1))
    assert again.messages == tight.messages
