"""Session strategies: what each keeps, summarises and drops, by name
or configured, in `compact_view` and in an agent's runs."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tiller import Agent
from tiller.context import ContextBudget, ContextView, compact_view, message_tokens
from tiller.context.strategies import (
    HierarchicalSummary,
    LexicalRelevance,
    SemanticCompression,
    SlidingWindow,
    SlidingWindowWithSummary,
    register_strategy,
    registry,
    resolve_strategy,
    strategy_names,
)
from tiller.context.strategies.base import turn_units
from tiller.context.strategies.hierarchical import HOUR_MS, bucket_header
from tiller.errors import ContextOverflowError, UsageError
from tiller.events import AgentEvent, ContextCompacted
from tiller.loop import LoopConfig
from tiller.loop.options import ContextOptions
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from tiller.models import Fail, ScriptedModel

from .test_view import conversation

START = 1_714_521_600_000  # 2024-05-01 00:00 UTC


def user(text: str, at: int = 0) -> UserMessage:
    return UserMessage([TextContent(text)], at)


def assistant(text: str, at: int = 0) -> AssistantMessage:
    return AssistantMessage([TextContent(text)], "stop", timestamp=at)


def texts(view: Sequence[Message]) -> list[str]:
    return [m.text for m in view]


def total(view: Sequence[Message]) -> int:
    return sum(map(message_tokens, view))


# ── sliding_window ──────────────────────────────────────────────────────────


async def test_sliding_window_keeps_the_newest_turns_behind_the_seed_marker() -> None:
    history = conversation(6, output_lines=20)
    budget = total(history[-8:]) + 20
    view = await SlidingWindow().fit(history, budget, message_tokens)
    assert total(view) <= budget
    assert view[0].text == f"[Context compacted: {len(history) - len(view) + 1} messages removed]"
    assert view[1:] == history[-(len(view) - 1) :]
    assert all(a is b for a, b in zip(view[1:], history[-(len(view) - 1) :], strict=True))


async def test_sliding_window_never_starts_with_an_orphan_tool_result() -> None:
    history = conversation(3, output_lines=30)
    # Room for the result and the answer of the last turn, not for its call: the
    # call and its result go together, so both are dropped.
    budget = total(history[-2:]) + 15
    view = await SlidingWindow().fit(history, budget, message_tokens)
    assert not any(isinstance(m, ToolResultMessage) for m in view)
    assert view[-1] is history[-1]


async def test_a_history_that_fits_comes_back_whole() -> None:
    history = conversation(2, output_lines=3)
    for strategy in (SlidingWindow(), SlidingWindowWithSummary(), SemanticCompression()):
        assert await strategy.fit(history, 10_000, message_tokens) == history


# ── sliding_window_with_summary ─────────────────────────────────────────────


async def test_window_with_summary_summarises_older_turns_in_one_message() -> None:
    history = conversation(6, output_lines=40)
    strategy = SlidingWindowWithSummary(recent_messages=4)
    view = await strategy.fit(history, total(history) // 3, message_tokens)
    summary, *recent = view
    assert recent == history[-4:]
    assert summary.text.startswith("[Context summary of 20 earlier messages]")
    # what the older turns asked, called (with the file names) and got back is there
    assert "- User: question 0" in summary.text
    assert 'read {"path": "file1.txt"}' in summary.text
    assert "- Tool read returned (40 lines): line 0 of file 2" in summary.text


async def test_window_with_summary_uses_the_summarizer_and_falls_back_when_it_fails() -> None:
    history = conversation(5, output_lines=40)
    seen: list[int] = []

    async def summarize(messages: Sequence[Message]) -> str:
        seen.append(len(messages))
        return "The user read five files; all answered."

    view = await SlidingWindowWithSummary(recent_messages=4, summarize=summarize).fit(
        history, total(history) // 3, message_tokens
    )
    assert seen == [16]
    assert "The user read five files" in view[0].text

    async def broken(messages: Sequence[Message]) -> str:
        raise RuntimeError("model down")

    view = await SlidingWindowWithSummary(recent_messages=4, summarize=broken).fit(
        history, total(history) // 3, message_tokens
    )
    assert view[0].text.startswith("[Context summary of 16 earlier messages]")
    assert "- User: question 1" in view[0].text


async def test_a_summary_met_again_is_carried_over_not_summarised_twice() -> None:
    history = conversation(6, output_lines=40)
    strategy = SlidingWindowWithSummary(recent_messages=4)
    first = await strategy.fit(history, total(history) // 3, message_tokens)
    grown = [*first, user("one more question"), assistant("sure")]
    second = await strategy.fit(grown, total(first) - 5, message_tokens)
    # the old summary (20 messages) and the turn that left the window (1) in one
    assert second[0].text.startswith("[Context summary of 21 earlier messages]")
    assert second[0].text.count("[Context summary") == 1
    assert second[0].text.endswith("- User: question 5")  # the newest line, carried on


# ── semantic_compression ────────────────────────────────────────────────────


def topical_history() -> list[Message]:
    turns = [
        ("How do I configure the postgres connection pool size?", "Set pool_size=20."),
        ("What is the capital of France?", "Paris."),
        ("Tell me a joke about cats.", "A cat walked into a bar..."),
        ("Which weather is expected tomorrow?", "Rain in the afternoon."),
        ("Recommend a book about gardening.", "Try 'The Well-Tempered Garden'."),
    ]
    history: list[Message] = []
    for i, (question, answer) in enumerate(turns):
        history += [user(question, START + i), assistant(answer, START + i)]
    history.append(user("Why does the postgres connection pool run out?", START + 99))
    return history


async def test_semantic_compression_keeps_the_turn_about_the_current_topic() -> None:
    history = topical_history()
    budget = total([history[0], history[-3], history[-2], history[-1]]) + 12
    view = await SemanticCompression().fit(history, budget, message_tokens)
    assert history[0] in view  # the old turn about postgres pools outranks newer ones
    assert history[2] not in view
    assert history[4] not in view
    assert view[-1] is history[-1]
    assert view[0].text.startswith("[Context compacted:")
    # chronological order restored
    kept = [history.index(m) for m in view[1:]]
    assert kept == sorted(kept)


async def test_semantic_compression_weighs_relevance_0_7_and_recency_0_3() -> None:
    history = topical_history()
    strategy = SemanticCompression()
    messages = history
    units = turn_units(messages)
    scores = await strategy.scores(messages, units)
    relevance = LexicalRelevance()(messages[-1].text, [messages[a].text for a, _ in units[:-1]])
    last = len(units) - 1
    assert scores == pytest.approx([0.7 * r + 0.3 * u / last for u, r in enumerate(relevance)])


async def test_semantic_compression_accepts_an_async_scorer_and_checks_its_answer() -> None:
    history = topical_history()

    async def prefer_jokes(query: str, documents: Sequence[str]) -> list[float]:
        return [1.0 if "joke" in d else 0.0 for d in documents]

    budget = total([history[4], history[-1]]) + 30  # and the marker
    view = await SemanticCompression(scorer=prefer_jokes).fit(history, budget, message_tokens)
    assert history[4] in view

    def wrong(query: str, documents: Sequence[str]) -> list[float]:
        return [0.5]

    with pytest.raises(UsageError, match="returned 1 scores for 10"):
        await SemanticCompression(scorer=wrong).fit(history, budget, message_tokens)


async def test_semantic_compression_keeps_a_call_with_its_results() -> None:
    history = conversation(4, output_lines=30)
    history.append(user("show file0.txt again"))
    budget = total(history) // 2
    view = await SemanticCompression().fit(history, budget, message_tokens)
    calls = {b.id for m in view if isinstance(m, AssistantMessage) for b in m.tool_calls}
    results = {m.tool_call_id for m in view if isinstance(m, ToolResultMessage)}
    assert calls == results
    assert "c0" in calls  # the turn about file0 is the relevant one


# ── hierarchical_summary ────────────────────────────────────────────────────


def timeline() -> list[Message]:
    """Three days of conversation: two days ago, yesterday by the hour, the last hour."""
    stamps = [
        START - 2 * 24 * HOUR_MS,  # 2024-04-29: one day summary
        START - 2 * 24 * HOUR_MS + HOUR_MS,
        START - 20 * HOUR_MS,  # 2024-04-30 04:00, within the last day: an hour summary
        START - 20 * HOUR_MS + 60_000,
        START - 3 * HOUR_MS,  # 2024-04-30 21:00: another hour
        START - 30 * 60_000,  # the last hour: verbatim
        START,
    ]
    history: list[Message] = []
    for i, at in enumerate(stamps):
        history += [user(f"question {i} " + "word " * 60, at), assistant(f"answer {i}", at)]
    return history


async def test_hierarchical_summary_by_day_then_hour_then_verbatim() -> None:
    history = timeline()
    view = await HierarchicalSummary().fit(history, total(history) // 2, message_tokens)
    headers = [m.text.split("\n")[0] for m in view if m.text.startswith("[Summary of")]
    assert headers == [
        "[Summary of 4 messages from 2024-04-29 UTC]",
        "[Summary of 4 messages from 2024-04-30 04:00–05:00 UTC]",
        "[Summary of 2 messages from 2024-04-30 21:00–22:00 UTC]",
    ]
    assert view[-4:] == history[-4:]  # the last hour, verbatim
    assert total(view) <= total(history) // 2


async def test_hierarchical_summary_measures_time_from_now() -> None:
    history = timeline()
    later = HierarchicalSummary(now=lambda: START + 3 * 24 * HOUR_MS)
    view = await later.fit(history, total(history) // 2, message_tokens)
    # Three days on, everything is older than a day: day summaries, and the newest
    # turn verbatim as always.
    headers = [m.text.split("\n")[0] for m in view if m.text.startswith("[Summary of")]
    assert all(h.endswith(" UTC]") and "–" not in h for h in headers)
    assert view[-1] is history[-1]


def test_bucket_headers_name_the_span() -> None:
    assert bucket_header("hour", START, 1) == (
        "[Summary of 1 message from 2024-05-01 00:00–01:00 UTC]"
    )
    assert bucket_header("day", START, 3) == "[Summary of 3 messages from 2024-05-01 UTC]"


# ── choosing a strategy ─────────────────────────────────────────────────────


def test_strategies_by_name_and_unknown_names() -> None:
    assert strategy_names() == [
        "hierarchical_summary",
        "semantic_compression",
        "sliding_window",
        "sliding_window_with_summary",
    ]
    for name in strategy_names():
        strategy = resolve_strategy(name)
        assert strategy is not None
        assert strategy.name == name
    custom = SlidingWindowWithSummary(recent_messages=2)
    assert resolve_strategy(custom) is custom
    assert resolve_strategy(None) is None
    with pytest.raises(UsageError, match="unknown context strategy 'sliding'; choose one of"):
        resolve_strategy("sliding")
    with pytest.raises(UsageError, match="is not a context strategy"):
        resolve_strategy(42)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="unknown context strategy"):
        LoopConfig(model=ScriptedModel([]), context=ContextOptions(strategy="nope"))
    with pytest.raises(UsageError, match="unknown context strategy"):
        Agent(ScriptedModel([]), context=ContextOptions(strategy="nope"))


def test_a_registered_strategy_is_chosen_by_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # The registry is process-wide: the registration is undone after the test.
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    register_strategy("last_two", lambda: SlidingWindowWithSummary(recent_messages=2))
    strategy = resolve_strategy("last_two")
    assert isinstance(strategy, SlidingWindowWithSummary)
    assert strategy.recent_messages == 2


async def test_compact_view_records_a_strategy_block_and_is_idempotent() -> None:
    history = conversation(6, output_lines=100)
    view = ContextView()
    config = ContextBudget(max_context_tokens=1_500)
    strategy = SlidingWindowWithSummary(recent_messages=4)
    block = await compact_view(view, history, config, strategy=strategy)
    assert block is not None
    assert block.method == "sliding_window_with_summary"
    assert block.summary is not None
    assert block.summary.startswith("[Context summary of")
    assert block.tokens_after <= 1_500 < block.tokens_before
    assert block.spans == [(0, len(history) - 4)]
    # compacting the compacted view changes nothing; undo gives the history back
    assert await compact_view(view, history, config, strategy=strategy) is None
    view.undo()
    assert view.view(history) == history


async def test_an_agent_uses_its_strategy_and_a_run_can_choose_another() -> None:
    history = conversation(6, output_lines=100)
    model = ScriptedModel(["first", "second"])
    agent = Agent(
        model,
        history=history,
        context=ContextOptions(
            budget=ContextBudget(max_context_tokens=1_500), strategy="sliding_window"
        ),
    )
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    await agent.run("next")
    sent = model.requests[0].messages
    assert sent[0].text.startswith("[Context compacted:")
    assert sent[-1].text == "next"

    agent.context_view.clear()
    await agent.run(
        "again", context=ContextOptions(agent.context.budget, "sliding_window_with_summary")
    )
    assert model.requests[1].messages[0].text.startswith("[Context summary of")
    methods = [e.method for e in events if isinstance(e, ContextCompacted)]
    assert methods == ["sliding_window", "sliding_window_with_summary"]
    assert agent.messages[: len(history)] == history  # the history is whole
    assert isinstance(agent.context.strategy, SlidingWindow)  # the agent's own is kept


async def test_a_misspelt_strategy_for_a_run_fails_before_it_starts() -> None:
    agent = Agent(ScriptedModel(["never"]), history=[user("hi"), assistant("hello")])
    with pytest.raises(UsageError, match="unknown context strategy"):
        await agent.run("next", context=ContextOptions(strategy="windo"))
    assert len(agent.messages) == 2


async def test_a_strategy_also_shrinks_the_view_after_an_overflow() -> None:
    history = conversation(6, output_lines=40)
    model = ScriptedModel(
        [Fail(ContextOverflowError("prompt is too long: 9000 tokens > 4000 maximum")), "ok"]
    )
    agent = Agent(model, history=history, context=ContextOptions(strategy=SlidingWindow()))
    result = await agent.run("next")
    assert result.text == "ok"
    assert agent.context_view.blocks[-1].method == "sliding_window"
    assert len(model.requests[1].messages) < len(model.requests[0].messages)
