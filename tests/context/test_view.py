"""The non-destructive view: history kept whole, compaction blocks, undo, saving."""

from __future__ import annotations

import json

import pytest

from tiller.context import ContextBudget, ContextView, compact_view
from tiller.errors import InvalidHistoryError
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def conversation(turns: int, output_lines: int = 200) -> list[Message]:
    history: list[Message] = []
    for i in range(turns):
        history.append(UserMessage.of(f"question {i}"))
        call = ToolCall(f"c{i}", "read", {"path": f"file{i}.txt"})
        history.append(AssistantMessage([call], "tool_use"))
        body = "\n".join(f"line {n} of file {i}" for n in range(output_lines))
        history.append(ToolResultMessage(f"c{i}", "read", [TextContent(body)]))
        history.append(AssistantMessage([TextContent(f"answer {i}")], "stop"))
    return history


async def test_compaction_writes_a_block_and_leaves_the_history_whole() -> None:
    history = conversation(6)
    original = list(history)
    view = ContextView()
    block = await compact_view(view, history, ContextBudget(max_context_tokens=2_000))
    assert block is not None
    assert history == original
    assert all(a is b for a, b in zip(history, original, strict=True))
    assert view.blocks == [block]
    assert view.view(history) == block.messages
    assert block.upto == len(history)
    assert block.tokens_after <= 2_000 < block.tokens_before
    # the spans name what was cut: every tool output was truncated at level 1 at least
    assert any(start <= 2 < end for start, end in block.spans)


async def test_new_messages_follow_the_block_and_compacting_a_fitting_view_does_nothing() -> None:
    history = conversation(6)
    view = ContextView()
    config = ContextBudget(max_context_tokens=2_000)
    block = await compact_view(view, history, config)
    assert block is not None
    history.append(UserMessage.of("and now?"))
    assert view.view(history) == [*block.messages, history[-1]]
    assert await compact_view(view, history, config) is None
    assert len(view.blocks) == 1


async def test_undo_removes_a_block_and_the_view_reverts() -> None:
    history = conversation(8)
    view = ContextView()
    first = await compact_view(view, history, ContextBudget(max_context_tokens=3_000))
    second = await compact_view(view, history, ContextBudget(max_context_tokens=600))
    assert first is not None
    assert second is not None
    assert view.view(history) == second.messages
    assert view.undo() is second
    assert view.view(history) == first.messages
    view.undo(first)
    assert view.view(history) == history
    with pytest.raises(InvalidHistoryError):
        view.undo()


async def test_a_second_compaction_keeps_the_first_ones_prefix() -> None:
    """Compaction starts from the current view, so kept messages stay the same objects."""
    history = conversation(10, output_lines=20)
    view = ContextView()
    config = ContextBudget(max_context_tokens=1_200, keep_recent=6)
    first = await compact_view(view, history, config)
    assert first is not None
    history.extend(conversation(10, output_lines=20))
    second = await compact_view(view, history, config)
    assert second is not None
    head = second.messages[: config.keep_first]
    assert all(a is b for a, b in zip(head, first.messages[: config.keep_first], strict=True))


async def test_blocks_round_trip_through_json_with_references_to_the_history() -> None:
    history = conversation(6)
    view = ContextView()
    await compact_view(view, history, ContextBudget(max_context_tokens=2_000))
    data = json.loads(json.dumps(view.to_data(history)))
    refs = [m for m in data[0]["messages"] if "ref" in m]
    assert refs, "messages kept from the history are saved as references"
    restored = ContextView.from_data(data, history)
    assert restored.view(history) == view.view(history)
    kept = [m for m in restored.view(history) if any(m is h for h in history)]
    assert len(kept) == len(refs)


@pytest.mark.parametrize(
    "bad",
    [
        "not a list",
        [{"upto": 999, "messages": [], "method": "level1"}],
        [{"upto": 1, "messages": [{"ref": 50}], "method": "level1"}],
        [{"messages": [], "method": "level1"}],
    ],
)
def test_bad_saved_blocks_are_refused(bad: object) -> None:
    with pytest.raises((ValueError, KeyError, IndexError, TypeError)):
        ContextView.from_data(bad, conversation(1))


def test_a_block_beyond_a_shorter_history_is_not_applied() -> None:
    history = conversation(2)
    view = ContextView()
    view.record(history, history[-2:], "level3")
    assert view.view(history[:3]) == history[:3]
