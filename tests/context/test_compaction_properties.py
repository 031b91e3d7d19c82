"""Compaction invariants, over random well-formed histories (issue 5)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tiller.context import ContextBudget, compact_messages, message_tokens, total_tokens
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

words = st.text(alphabet="abcdefghij \n", min_size=0, max_size=300)


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    n_turns = draw(st.integers(1, 12))
    call_no = 0
    clock = 1_000
    for _ in range(n_turns):
        clock += 1
        messages.append(UserMessage([TextContent(draw(words))], clock))
        for _ in range(draw(st.integers(0, 3))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                call_no += 1
                calls.append(ToolCall(f"c{call_no}", "tool", {"n": call_no}))
            text = draw(st.one_of(st.just(""), words))
            content: list[TextContent | ToolCall] = [TextContent(text)] if text else []
            clock += 1
            messages.append(AssistantMessage([*content, *calls], "tool_use", timestamp=clock))
            for call in calls:
                lines = draw(st.integers(1, 120))
                word = draw(st.sampled_from(["x", "yy", "zzz"]))  # one draw: keeps generation fast
                body = "\n".join(f"line {i} {word * (i % 7)}" for i in range(lines))
                clock += 1
                messages.append(
                    ToolResultMessage(call.id, "tool", [TextContent(body)], timestamp=clock)
                )
        if draw(st.booleans()):
            clock += 1
            messages.append(AssistantMessage([TextContent(draw(words))], "stop", timestamp=clock))
    return messages


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Message], ContextBudget]:
    history = draw(histories())
    total = total_tokens(history)
    budget = draw(st.integers(0, total + 10))
    config = ContextBudget(
        max_context_tokens=budget,
        tool_output_max_lines=draw(st.integers(2, 60)),
        keep_recent=draw(st.integers(1, 12)),
        keep_first=draw(st.integers(0, 4)),
    )
    return history, config


def is_marker(message: Message) -> bool:
    return isinstance(message, UserMessage) and message.text.startswith(
        ("[Context compacted:", "[Summary]")
    )


def smallest_possible(history: list[Message]) -> int:
    """Tokens of the smallest view compaction may return: one marker."""
    marker = UserMessage([TextContent(f"[Context compacted: {len(history)} messages removed]")])
    return message_tokens(marker)


@settings(max_examples=500, deadline=None)
@given(cases())
def test_the_result_fits_the_budget_whenever_possible(
    case: tuple[list[Message], ContextBudget],
) -> None:
    history, config = case
    view = compact_messages(history, config).messages
    if config.budget >= smallest_possible(history):
        assert total_tokens(view) <= config.budget


@settings(max_examples=500, deadline=None)
@given(cases())
def test_a_tool_call_and_its_result_are_never_separated(
    case: tuple[list[Message], ContextBudget],
) -> None:
    history, config = case
    view = compact_messages(history, config).messages
    calls = {b.id for m in view if isinstance(m, AssistantMessage) for b in m.tool_calls}
    results = {m.tool_call_id for m in view if isinstance(m, ToolResultMessage)}
    assert calls == results


@settings(max_examples=500, deadline=None)
@given(cases())
def test_compacting_a_compacted_view_changes_nothing(
    case: tuple[list[Message], ContextBudget],
) -> None:
    history, config = case
    view = compact_messages(history, config).messages
    if total_tokens(view) <= config.budget:
        assert compact_messages(view, config).messages == view


@settings(max_examples=500, deadline=None)
@given(cases())
def test_kept_messages_keep_their_order_and_the_result_is_deterministic(
    case: tuple[list[Message], ContextBudget],
) -> None:
    history, config = case
    view = compact_messages(history, config).messages
    assert compact_messages(history, config).messages == view
    position = {id(m): i for i, m in enumerate(history)}
    kept = [m for m in view if not is_marker(m)]
    # Level 1 may replace a tool result by its truncated copy; match those by call id.
    order = []
    for m in kept:
        if id(m) in position:
            order.append(position[id(m)])
        elif isinstance(m, ToolResultMessage):
            order.append(
                next(
                    i
                    for i, h in enumerate(history)
                    if isinstance(h, ToolResultMessage) and h.tool_call_id == m.tool_call_id
                )
            )
    assert order == sorted(order)
