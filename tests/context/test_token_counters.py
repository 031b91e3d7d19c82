"""Exact counters, per-message memory, incremental counting, calibration from usage."""

from __future__ import annotations

from tests.helpers import CountingCounter
from tiller.context.token_counters import (
    HeuristicCounter,
    MessageTokens,
    counter_for_model,
    tiktoken_counter,
)
from tiller.context.token_estimates import message_tokens
from tiller.messages import TextContent, ToolResultMessage, UserMessage
from tiller.models import ScriptedModel


def test_tiktoken_counts_cl100k_exactly_and_offline() -> None:
    count = tiktoken_counter()
    assert count("hello world") == 2
    assert count("") == 0
    # A special-token lookalike in user text is counted as text, not refused.
    assert count("<|endoftext|>") > 1


def test_message_counts_use_the_counter_with_fixed_per_message_overheads() -> None:
    words = CountingCounter()
    message = ToolResultMessage("c1", "read", [TextContent("one two three")])
    assert message_tokens(message, words) == 3 + 1 + 8
    assert MessageTokens(words).raw(UserMessage([TextContent("a b")])) == 2 + 4


def test_each_message_is_counted_once() -> None:
    words = CountingCounter()
    tokens = MessageTokens(words)
    history = [UserMessage.of(f"message number {i}") for i in range(10_000)]
    assert tokens.total(history) == 10_000 * (3 + 4)
    calls = words.calls
    history.append(UserMessage.of("one more"))
    assert tokens.total(history) == 10_000 * 7 + 6
    assert words.calls == calls + 1  # appending one message counted one message


def test_an_equal_but_different_message_is_counted_on_its_own() -> None:
    words = CountingCounter()
    tokens = MessageTokens(words)
    a, b = UserMessage.of("same text"), UserMessage.of("same text")
    tokens.raw(a)
    tokens.raw(b)
    assert words.calls == 2


def test_reported_usage_calibrates_later_estimates() -> None:
    tokens = MessageTokens(HeuristicCounter())
    message = UserMessage.of("x" * 1000)  # 250 estimated + 4
    assert tokens(message) == 254
    tokens.observe(estimated_raw=254, reported=508)
    assert tokens(message) == 508
    assert tokens.total([message, message]) == 1016
    assert tokens.raw(message) == 254
    tokens.observe(estimated_raw=0, reported=50)  # nothing to learn from
    tokens.observe(estimated_raw=150, reported=50)  # too small to tell
    assert tokens.scale == 2.0
    tokens.observe(estimated_raw=10_000, reported=10)  # nonsense is bounded
    assert tokens.scale == 0.25
    tokens.observe(estimated_raw=1_000, reported=1_000_000)
    assert tokens.scale == 4.0


def test_counter_for_model_prefers_the_most_exact() -> None:
    assert counter_for_model(ScriptedModel([])).name == "heuristic"

    class OpenAILike:
        name = "gpt-4.1"
        provider = "openai"

    assert counter_for_model(OpenAILike()).name == "cl100k_base"

    class OwnTokenizer:
        name = "own"
        provider = "local"

        def count_tokens(self, text: str) -> int:
            return 7

    assert counter_for_model(OwnTokenizer())("anything") == 7


def test_a_growing_history_total_counts_only_what_was_added() -> None:
    words = CountingCounter()
    tokens = MessageTokens(words)
    history = [UserMessage.of(f"message number {i}") for i in range(10_000)]
    assert tokens.tail_total(history) == 70_000
    calls = words.calls
    history.append(UserMessage.of("one more"))
    assert tokens.tail_total(history) == 70_006
    assert words.calls == calls + 1
    assert tokens.tail_total(history, 9_999) == 7 + 6
    # Another history (here a shorter copy) is summed afresh, from remembered counts.
    calls = words.calls
    assert tokens.tail_total(history[:10]) == 10 * 7
    assert words.calls == calls


def test_usage_noted_for_later_is_counted_only_when_a_count_is_read() -> None:
    words = CountingCounter()
    tokens = MessageTokens(words)
    history = [UserMessage.of("word " * 100) for _ in range(5)]
    tokens.observe_later(history[:3], reported=624, overhead=lambda: 0)
    tokens.observe_later(history, reported=1_040, overhead=lambda: 0)  # the same, grown
    assert words.calls == 0
    eager = MessageTokens(CountingCounter())
    eager.observe(eager.total(history), 1_040)
    assert tokens.scale == eager.scale == 2.0
    assert words.calls == 5
    assert tokens.observed == 1


def test_a_counter_for_a_model_is_chosen_on_first_use() -> None:
    class OwnTokenizer:
        name = "own"
        provider = "local"
        asked = 0

        def count_tokens(self, text: str) -> int:
            OwnTokenizer.asked += 1
            return 7

    tokens = MessageTokens.for_model(OwnTokenizer())
    assert OwnTokenizer.asked == 0
    assert tokens.raw(UserMessage.of("anything")) == 7 + 4
    assert tokens.counter.name == "own"
