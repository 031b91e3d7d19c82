"""Provider failures on the real wire: classified, and retried (or not) by the loop."""

from __future__ import annotations

import email.utils
import socket
import time

import pytest

from tests.models.anthropic.conftest import API_KEY
from tests.models.anthropic.streams import ask, asked, collect, sent
from tests.servers.anthropic_api import AnthropicAPI, Failure, Reply, Text
from tiller.agent import Agent
from tiller.errors import (
    AuthError,
    ContextOverflowError,
    NetworkError,
    OverloadedError,
    RateLimitError,
)
from tiller.events import AgentEvent, ContextCompacted, Retry
from tiller.loop.options import Execution
from tiller.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tiller.models.anthropic import AnthropicModel
from tiller.models.retry import RetryPolicy

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

# Tiny delays so retries are quick; a retry-after is capped at 0.05 s.
FAST_RETRY = RetryPolicy(
    max_retries=3, base_delay_s=0.001, max_delay_s=0.004, retry_after_cap_s=0.05
)
OVERLOADED = Failure(529, "overloaded_error", "Overloaded")
OVERFLOW = "prompt is too long: 208954 tokens > 200000 maximum"


def _agent(
    model: AnthropicModel, history: list[Message] | None = None
) -> tuple[Agent, list[AgentEvent]]:
    agent = Agent(model, history=history or [], execution=Execution(retry=FAST_RETRY))
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    return agent, events


def _retries(events: list[AgentEvent]) -> list[Retry]:
    return [e for e in events if isinstance(e, Retry)]


def _http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


def _all_sent_alike(api: AnthropicAPI, count: int) -> bool:
    """`count` requests arrived, every retry sending exactly the first request's body."""
    return [r.body for r in api.requests] == [api.requests[0].body] * count


# ── classification ──────────────────────────────────────────────────────────


async def test_context_overflow_with_anthropics_message(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Failure(400, "invalid_request_error", OVERFLOW))

    with pytest.raises(ContextOverflowError) as caught:
        await collect(model, ask("a very long prompt"))

    assert caught.value.requested_tokens == 208954
    assert caught.value.context_window == 200000
    assert caught.value.status_code == 400
    assert "prompt is too long" in str(caught.value)
    assert [sent(r) for r in api.requests] == [asked("a very long prompt")]


async def test_request_too_large_with_an_empty_body_is_overflow(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Failure(413, raw_body=""))

    with pytest.raises(ContextOverflowError):
        await collect(model, ask("huge"))
    assert [sent(r) for r in api.requests] == [asked("huge")]


async def test_rate_limit_carries_retry_after(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(Failure(429, "rate_limit_error", "Rate limited", headers={"retry-after": "7"}))

    with pytest.raises(RateLimitError) as caught:
        await collect(model, ask("hi"))

    assert caught.value.retry_after == 7.0
    assert [sent(r) for r in api.requests] == [asked("hi")]


async def test_overloaded_carries_retry_after(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(Failure(529, "overloaded_error", "Overloaded", headers={"retry-after": "3"}))

    with pytest.raises(OverloadedError) as caught:
        await collect(model, ask("hi"))

    assert caught.value.retry_after == 3.0


async def test_401_is_an_auth_error(api: AnthropicAPI) -> None:
    claude = AnthropicModel("claude-sonnet-4-5", api_key="wrong-key", base_url=api.url)
    try:
        with pytest.raises(AuthError, match="check the key") as caught:
            await collect(claude, ask("hi"))
    finally:
        await claude.aclose()

    assert caught.value.status_code == 401
    assert not caught.value.retryable
    assert [sent(r) for r in api.requests] == [asked("hi")]
    assert api.requests[0].api_key == "wrong-key"


async def test_in_stream_overloaded_error_is_overloaded(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Reply([Text("Half an ans")], error={"type": "overloaded_error", "message": "Overloaded"})
    )

    with pytest.raises(OverloadedError, match="Overloaded"):
        await collect(model, ask("hi"))
    assert [sent(r) for r in api.requests] == [asked("hi")]


async def test_connection_cut_mid_stream_is_a_network_error(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("Hello there, this is cut", piece=4)], end="cut", cut_after=5))

    with pytest.raises(NetworkError, match="connection failed mid-response"):
        await collect(model, ask("hi"))
    assert not api.requests[0].stream_completed
    assert [sent(r) for r in api.requests] == [asked("hi")]


async def test_clean_end_without_message_stop_is_a_network_error(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("Looks complete")], end="eof"))

    with pytest.raises(NetworkError, match="before message_stop"):
        await collect(model, ask("hi"))
    assert api.requests[0].stream_completed  # the server ended the body cleanly
    assert [sent(r) for r in api.requests] == [asked("hi")]


async def test_nobody_listening_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    claude = AnthropicModel(
        "claude-sonnet-4-5", api_key=API_KEY, base_url=f"http://127.0.0.1:{port}"
    )
    try:
        with pytest.raises(NetworkError, match="could not reach the API"):
            await collect(claude, ask("hi"))
    finally:
        await claude.aclose()


# ── through the loop ────────────────────────────────────────────────────────


async def test_429_with_retry_after_then_success(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        Failure(
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
            headers={"retry-after": "1"},
        ),
        Reply([Text("Made it.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Made it."
    assert result.stop_reason == "stop"
    (retry,) = _retries(events)
    assert retry.error_kind == "rate_limited"
    assert retry.delay_s == 0.05  # retry-after (1 s), capped by the policy
    assert _all_sent_alike(api, 2)
    assert sent(api.requests[0]) == asked("hi")


async def test_429_with_retry_after_as_an_http_date(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Failure(429, "rate_limit_error", "Slow down", headers={"retry-after": _http_date(3)}),
        Failure(429, "rate_limit_error", "Slow down", headers={"retry-after": _http_date(-5)}),
        Reply([Text("Made it.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Made it."
    # a date ahead waits until then (capped by the policy); a date gone by not at all,
    # where backoff alone would wait 0.5-2 ms
    assert [r.delay_s for r in _retries(events)] == [0.05, 0.0]
    assert _all_sent_alike(api, 3)


async def test_529_and_503_then_success(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        OVERLOADED,
        Failure(503, "api_error", "Service unavailable"),
        Reply([Text("Back.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Back."
    assert [r.error_kind for r in _retries(events)] == ["overloaded", "overloaded"]
    assert _all_sent_alike(api, 3)
    assert sent(api.requests[0]) == asked("hi")


async def test_529_with_retry_after_then_success(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        Failure(529, "overloaded_error", "Overloaded", headers={"retry-after": "2"}),
        Failure(529, "overloaded_error", "Overloaded", headers={"retry-after": "0"}),
        Reply([Text("Back.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Back."
    (first, second) = _retries(events)
    assert first.error_kind == second.error_kind == "overloaded"
    assert first.delay_s == 0.05  # retry-after 2 s, capped by the policy
    assert second.delay_s == 0.0  # retry-after 0: at once, not after a backoff
    assert _all_sent_alike(api, 3)


async def test_500_then_success(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(Failure(500, "api_error", "Internal server error"), Reply([Text("Fine now.")]))
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Fine now."
    assert [r.error_kind for r in _retries(events)] == ["network"]
    assert _all_sent_alike(api, 2)
    assert sent(api.requests[0]) == asked("hi")


async def test_401_is_not_retried(api: AnthropicAPI) -> None:
    claude = AnthropicModel("claude-sonnet-4-5", api_key="wrong-key", base_url=api.url)
    agent, events = _agent(claude)
    try:
        result = await agent.run("hi")
    finally:
        await claude.aclose()

    assert result.stop_reason == "error"
    assert result.error is not None
    assert "auth" in result.error
    assert "invalid x-api-key" in result.error
    assert _retries(events) == []
    assert [sent(r) for r in api.requests] == [asked("hi")]
    assert api.requests[0].api_key == "wrong-key"


async def test_in_stream_overloaded_error_then_success(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(
        Reply([Text("I will answ")], error={"type": "overloaded_error", "message": "Overloaded"}),
        Reply([Text("I will answer: yes.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "I will answer: yes."
    assert [r.error_kind for r in _retries(events)] == ["overloaded"]
    # the half-streamed first answer was not sent back: the request is the same
    assert _all_sent_alike(api, 2)
    assert sent(api.requests[0]) == asked("hi")
    assert [m.text for m in agent.messages if isinstance(m, AssistantMessage)] == [
        "I will answer: yes."
    ]


async def test_connection_cut_then_success(api: AnthropicAPI, model: AnthropicModel) -> None:
    api.script(
        Reply([Text("Interrupted", piece=2)], end="cut", cut_after=4),
        Reply([Text("Whole answer.")]),
    )
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Whole answer."
    assert [r.error_kind for r in _retries(events)] == ["network"]
    assert _all_sent_alike(api, 2)
    assert sent(api.requests[0]) == asked("hi")


async def test_clean_end_without_message_stop_then_success(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    api.script(Reply([Text("Truncated")], end="eof"), Reply([Text("Complete.")]))
    agent, events = _agent(model)

    result = await agent.run("hi")

    assert result.text == "Complete."
    (retry,) = _retries(events)
    assert retry.error_kind == "network"
    assert "message_stop" in retry.error_message
    assert _all_sent_alike(api, 2)
    assert sent(api.requests[0]) == asked("hi")


async def test_overflow_compacts_the_history_and_retries_once(
    api: AnthropicAPI, model: AnthropicModel
) -> None:
    log = "\n".join(f"line {n}: " + "x" * 60 for n in range(2000))
    history: list[Message] = [
        UserMessage.of("Read the log."),
        AssistantMessage([ToolCall("toolu_log", "read_log", {})], "tool_use"),
        ToolResultMessage("toolu_log", "read_log", [TextContent(log)]),
        AssistantMessage([TextContent("It is long.")], "stop"),
    ]
    api.script(
        Failure(400, "invalid_request_error", "prompt is too long: 60000 tokens > 20000 maximum"),
        Reply([Text("Summary: all lines are x.")]),
    )
    agent, events = _agent(model, history)

    result = await agent.run("Summarise it.")

    assert result.text == "Summary: all lines are x."
    (compacted,) = [e for e in events if isinstance(e, ContextCompacted)]
    assert compacted.tokens_after < compacted.tokens_before
    first, second = api.requests
    assert len(str(second.body)) < len(str(first.body)) / 2
    for request in (first, second):
        model_name, streamed, messages = sent(request)
        assert (model_name, streamed) == ("claude-sonnet-4-5", True)
        assert messages[-1] == ("user", "Summarise it.")
    # the call and its (truncated) result still travel together
    assert second.messages[1]["content"][0]["id"] == "toolu_log"
    assert second.messages[2]["content"][0]["tool_use_id"] == "toolu_log"
