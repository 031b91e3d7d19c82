"""An Agent keeps its compaction blocks beside the full history, saves and restores both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiller import Agent
from tiller.context import ContextBudget
from tiller.errors import UsageError
from tiller.events import AgentEvent, ContextCompacted
from tiller.loop.options import ContextOptions
from tiller.messages import Usage, UserMessage
from tiller.models import Reply, ScriptedModel

from ..context.test_view import conversation


async def test_compaction_during_a_run_is_a_block_and_an_event() -> None:
    history = conversation(8)
    agent = Agent(
        ScriptedModel(["ok"]),
        history=history,
        context=ContextOptions(budget=ContextBudget(max_context_tokens=1_500)),
    )
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    await agent.run("next")
    (event,) = [e for e in events if isinstance(e, ContextCompacted)]
    (block,) = agent.context_view.blocks
    assert event.method == block.method
    assert event.tokens_after == block.tokens_after <= 1_500
    assert len(agent.messages) == len(history) + 2  # nothing of the history was lost
    assert agent.messages[: len(history)] == history


async def test_save_and_load_keep_history_and_blocks(tmp_path: Path) -> None:
    agent = Agent(
        ScriptedModel(["ok"]),
        history=conversation(8),
        context=ContextOptions(budget=ContextBudget(max_context_tokens=1_500)),
    )
    await agent.run("next")
    view_before = agent.context_view.view(agent.messages)
    agent.save(tmp_path / "session.json")

    restored = Agent(
        ScriptedModel([]), context=ContextOptions(budget=ContextBudget(max_context_tokens=1_500))
    )
    restored.load(tmp_path / "session.json")
    assert restored.messages == agent.messages
    assert len(restored.context_view.blocks) == 1
    assert restored.context_view.view(restored.messages) == view_before
    restored.context_view.undo()  # undo still works after a restore
    assert restored.context_view.view(restored.messages) == restored.messages


async def test_a_malformed_saved_compaction_changes_nothing() -> None:
    agent = Agent(ScriptedModel([]), history=[UserMessage.of("keep me")])
    bad = '{"format": 1, "messages": [], "compactions": [{"upto": 3, "messages": []}]}'
    with pytest.raises(UsageError, match="compaction"):
        agent.load_json(bad)
    assert [m.text for m in agent.messages if isinstance(m, UserMessage)] == ["keep me"]


async def test_reported_usage_makes_the_next_budget_decision() -> None:
    """The estimate says the history fits; the provider said it is twice as big."""
    history = conversation(3, output_lines=40)
    estimate = Agent(ScriptedModel([])).context_view.tokens.total(history)
    budget = int(estimate * 1.5)
    model = ScriptedModel(
        [Reply("first", usage=Usage(input_tokens=estimate * 2, output_tokens=1)), "second"]
    )
    agent = Agent(
        model,
        history=history,
        context=ContextOptions(budget=ContextBudget(max_context_tokens=budget)),
    )
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    await agent.run("one")
    assert not [e for e in events if isinstance(e, ContextCompacted)]
    await agent.run("two")
    assert [e for e in events if isinstance(e, ContextCompacted)]
    assert agent.context_view.tokens.observed == 1
