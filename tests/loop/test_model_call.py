"""Model calls: retries with events, overflow compaction and one retry."""

from __future__ import annotations

from tests.helpers import Recorder, config
from tiller.context import total_tokens
from tiller.errors import (
    APIError,
    AuthError,
    ContextOverflowError,
    NetworkError,
    OverloadedError,
    RateLimitError,
)
from tiller.events import AgentEnd, ContextCompacted, MessageEnd, Retry
from tiller.loop import agent_loop
from tiller.loop.options import ContextOptions, Execution
from tiller.messages import AssistantMessage, Message, TextContent, ToolResultMessage, UserMessage
from tiller.models import Fail, Reply, RetryPolicy, ScriptedModel

FAST = RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.002)


async def test_retryable_errors_are_retried_with_an_event_per_attempt() -> None:
    model = ScriptedModel(
        [
            Fail(RateLimitError("slow down", retry_after=0.01)),
            Fail(OverloadedError("overloaded")),
            Reply("partial", fail=NetworkError("stream cut")),
            "finally",
        ]
    )
    rec = Recorder()
    new = await agent_loop("q", [], config(model, execution=Execution(retry=FAST)), rec)
    retries = rec.of(Retry)
    assert [r.attempt for r in retries] == [1, 2, 3]
    assert [r.error_kind for r in retries] == ["rate_limited", "overloaded", "network"]
    assert retries[0].delay_s == 0.01  # retry-after honoured
    assert all(r.max_attempts == 3 for r in retries)
    # Only the successful attempt is in the history.
    assert [m.text for m in new] == ["q", "finally"]
    assert rec.of(AgentEnd)[0].stats.retries == 3
    # Each failed attempt was announced as ended with an error, before its retry event.
    errors = [
        e.message for e in rec.of(MessageEnd) if getattr(e.message, "stop_reason", "") == "error"
    ]
    assert len(errors) == 3


async def test_retries_give_up_after_the_policy_limit() -> None:
    model = ScriptedModel([Fail(OverloadedError("overloaded"))] * 3)
    rec = Recorder()
    new = await agent_loop(
        "q", [], config(model, execution=Execution(retry=RetryPolicy(2, 0.001, 0.001))), rec
    )
    assert len(rec.of(Retry)) == 2
    assert new[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert new[-1].error_message == "overloaded: overloaded"  # type: ignore[union-attr]


async def test_auth_and_api_errors_are_never_retried() -> None:
    for error in (AuthError("bad key"), APIError("bad request")):
        model = ScriptedModel([Fail(error), "unused"])
        rec = Recorder()
        new = await agent_loop("q", [], config(model, execution=Execution(retry=FAST)), rec)
        assert rec.of(Retry) == []
        assert new[-1].stop_reason == "error"  # type: ignore[union-attr]
        assert model.remaining == 1


def test_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=10, base_delay_s=1, max_delay_s=5, retry_after_cap_s=7)
    error = OverloadedError("x")
    for attempt, ceiling in [(1, 1), (2, 2), (3, 4), (4, 5), (9, 5)]:
        delay = policy.delay_s(error, attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert policy.delay_s(RateLimitError("x", retry_after=100), 1) == 7


def long_history() -> list[Message]:
    history: list[Message] = []
    for i in range(12):
        history.append(UserMessage.of(f"question {i} " + "x" * 400))
        history.append(AssistantMessage([TextContent(f"answer {i} " + "y" * 400)], "stop"))
    return history


async def test_context_overflow_compacts_and_retries_once() -> None:
    model = ScriptedModel(
        [Fail(ContextOverflowError("prompt is too long: 250000 tokens > 200000 maximum")), "ok"]
    )
    rec = Recorder()
    history = long_history()
    new = await agent_loop("now", history, config(model, execution=Execution(retry=FAST)), rec)
    assert new[-1].text == "ok"
    (compacted,) = rec.of(ContextCompacted)
    assert compacted.tokens_after < compacted.tokens_before
    first, second = model.requests
    assert total_tokens(second.messages) <= compacted.tokens_after < total_tokens(first.messages)
    assert second.messages[-1].text == "now"
    assert rec.of(Retry) == []
    assert rec.of(AgentEnd)[0].stats.compactions == 1


async def test_overflow_reported_in_stream_is_detected_by_its_message() -> None:
    overflow = AssistantMessage(
        [], "error", error_message="This model's maximum context length is 8192 tokens"
    )
    model = ScriptedModel([overflow, "ok"])
    rec = Recorder()
    new = await agent_loop("now", long_history(), config(model), rec)
    assert new[-1].text == "ok"
    assert len(rec.of(ContextCompacted)) == 1


async def test_a_second_overflow_ends_the_run_with_the_error() -> None:
    model = ScriptedModel([Fail(ContextOverflowError("prompt is too long"))] * 2)
    new = await agent_loop("now", long_history(), config(model))
    assert new[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert "context_overflow" in (new[-1].error_message or "")  # type: ignore[union-attr]


async def test_compaction_never_separates_a_call_from_its_result() -> None:
    from tiller.messages import ToolCall

    history: list[Message] = []
    for i in range(10):
        history.append(UserMessage.of("q" * 300))
        history.append(AssistantMessage([ToolCall(f"c{i}", "f", {"i": i})], "tool_use"))
        history.append(ToolResultMessage(f"c{i}", "f", [TextContent("r" * 300)]))
    model = ScriptedModel([Fail(ContextOverflowError("prompt is too long")), "ok"])
    await agent_loop("now", history, config(model))
    sent = model.requests[1].messages
    calls = {b.id for m in sent if isinstance(m, AssistantMessage) for b in m.tool_calls}
    results = {m.tool_call_id for m in sent if isinstance(m, ToolResultMessage)}
    assert calls == results


# ── a prompt too large for the context window is never dropped silently ─────


async def test_a_prompt_larger_than_the_budget_ends_the_run_with_an_overflow_error() -> None:
    from tiller.context import ContextBudget
    from tiller.events import AgentEnd
    from tiller.messages import AssistantMessage

    model = ScriptedModel(["an invented answer"])
    rec = Recorder()
    ctx = ContextBudget(max_context_tokens=1_000)
    new = await agent_loop(
        "word " * 20_000, [], config(model, context=ContextOptions(budget=ctx)), rec
    )
    assert model.requests == []
    stats = rec.of(AgentEnd)[0].stats
    assert stats.stop_reason == "error"
    assert stats.error is not None
    assert stats.error.startswith("context_overflow: the newest message is about")
    assert "1,000 tokens of messages fit" in stats.error
    assert isinstance(new[-1], AssistantMessage)
    assert new[0].text.startswith("word word")  # the prompt is kept in the history


async def test_an_overflow_from_the_provider_never_compacts_the_prompt_away() -> None:
    from tiller.errors import ContextOverflowError
    from tiller.events import AgentEnd

    model = ScriptedModel(
        [
            Fail(
                ContextOverflowError(
                    "prompt is too long", requested_tokens=60_000, context_window=8_192
                )
            ),
            Reply("an answer to a question it never saw"),
        ]
    )
    rec = Recorder()
    await agent_loop("lorem ipsum " * 25_000, [], config(model), rec)
    assert len(model.requests) == 1  # never sent again without the prompt
    stats = rec.of(AgentEnd)[0].stats
    assert stats.stop_reason == "error"
    assert (stats.error or "").startswith("context_overflow: the newest message")


async def test_a_prompt_that_fits_alone_is_kept_while_older_history_goes() -> None:
    from tiller.context import ContextBudget
    from tiller.messages import AssistantMessage, TextContent, UserMessage

    old: list[Message] = []
    for i in range(30):
        old += [UserMessage.of(f"old question {i} " + "pad " * 200)]
        old += [AssistantMessage([TextContent(f"old answer {i} " + "pad " * 200)], "stop")]
    model = ScriptedModel(["ok"])
    ctx = ContextBudget(max_context_tokens=3_000, keep_recent=2, keep_first=0)
    await agent_loop(
        "the real question " + "detail " * 1_500,
        old,
        config(model, context=ContextOptions(budget=ctx)),
    )
    (request,) = model.requests
    assert request.messages[-1].text.startswith("the real question")
