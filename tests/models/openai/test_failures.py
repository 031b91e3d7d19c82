"""Failures on both OpenAI protocols, over a real socket: classified, retried or not, and
what went over the wire each time.

Each test runs on Chat Completions and on the Responses API (`wire`).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
from collections.abc import Sequence
from typing import Any

import pytest

from tests.helpers import Recorder
from tests.models.openai.conftest import FAST_RETRY
from tests.models.openai.wire import (
    OVERFLOW_MESSAGE,
    WIRES,
    Call,
    Wire,
    ask,
    collect,
    overflow_reply,
)
from tests.servers.openai_api import OpenAIServer, Reply, Stream, error_body
from tiller import Agent, tool
from tiller.errors import (
    APIError,
    AuthError,
    ContextOverflowError,
    NetworkError,
    OverloadedError,
    RateLimitError,
)
from tiller.events import ContextCompacted, MessageUpdate, Retry
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, Message, TextContent, UserMessage
from tiller.tools.base import Tool

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)


def agent(wire: Wire, server: OpenAIServer, tools: Sequence[Tool] = ()) -> tuple[Agent, Recorder]:
    bot = Agent(wire.model(server), tools=tools, execution=Execution(retry=FAST_RETRY))
    events = Recorder()
    bot.subscribe(events)
    return bot, events


def resent_unchanged(bodies: list[dict[str, Any]], count: int) -> bool:
    """`count` requests, every retry sending exactly the first one's body."""
    return bodies == [bodies[0]] * count


def http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


async def test_429_with_retry_after_then_success(wire: Wire, server: OpenAIServer) -> None:
    limited = error_body("Rate limit reached for requests", "requests", "rate_limit_exceeded")
    server.add(Reply(429, limited, {"retry-after": "1"}), wire.text("Hello"))
    bot, events = agent(wire, server)
    result = await bot.run("hi")
    assert result.text == "Hello"
    (retry,) = events.of(Retry)
    assert retry.error_kind == "rate_limited"
    assert "Rate limit reached" in retry.error_message
    assert retry.delay_s == FAST_RETRY.retry_after_cap_s  # retry-after 1 s, capped for tests
    assert resent_unchanged(server.bodies, 2)
    assert wire.sent(server.bodies[0]) == wire.asked("hi")


async def test_429_with_retry_after_as_an_http_date(wire: Wire, server: OpenAIServer) -> None:
    limited = error_body("Rate limit reached for requests", "requests", "rate_limit_exceeded")
    server.add(
        Reply(429, limited, {"retry-after": http_date(3)}),
        Reply(429, limited, {"retry-after": http_date(-5)}),
        wire.text("Hello"),
    )
    bot, events = agent(wire, server)
    assert (await bot.run("hi")).text == "Hello"
    # A date ahead waits until then (capped); a date gone by not at all, where backoff
    # alone would wait 1-2 ms.
    assert [r.delay_s for r in events.of(Retry)] == [FAST_RETRY.retry_after_cap_s, 0.0]
    assert resent_unchanged(server.bodies, 3)


async def test_429_retry_after_ms_is_honoured(wire: Wire, server: OpenAIServer) -> None:
    server.add(Reply(429, error_body("slow down", "requests"), {"retry-after-ms": "20"}))
    server.add(wire.text("ok"))
    bot, events = agent(wire, server)
    assert (await bot.run("hi")).text == "ok"
    assert events.of(Retry)[0].delay_s == pytest.approx(0.02)
    assert resent_unchanged(server.bodies, 2)


@pytest.mark.parametrize(("status", "kind"), [(503, "overloaded"), (500, "network")])
async def test_server_errors_then_success(
    wire: Wire, server: OpenAIServer, status: int, kind: str
) -> None:
    server.add(Reply(status, error_body("The server had an error", "server_error")))
    server.add(wire.text("Recovered"))
    bot, events = agent(wire, server)
    result = await bot.run("hi")
    assert result.text == "Recovered"
    assert [r.error_kind for r in events.of(Retry)] == [kind]
    assert result.stats.retries == 1
    assert resent_unchanged(server.bodies, 2)
    assert wire.sent(server.bodies[0]) == wire.asked("hi")


async def test_503_with_retry_after_then_success(wire: Wire, server: OpenAIServer) -> None:
    busy = error_body("The engine is currently overloaded, please try again later", "server_error")
    server.add(
        Reply(503, busy, {"retry-after": "2"}),
        Reply(503, busy, {"retry-after-ms": "20"}),
        wire.text("Recovered"),
    )
    bot, events = agent(wire, server)
    assert (await bot.run("hi")).text == "Recovered"
    retries = events.of(Retry)
    assert [r.error_kind for r in retries] == ["overloaded", "overloaded"]
    assert [r.delay_s for r in retries] == [FAST_RETRY.retry_after_cap_s, pytest.approx(0.02)]
    assert resent_unchanged(server.bodies, 3)


async def test_error_classes_at_the_model(wire: Wire, server: OpenAIServer) -> None:
    server.add(
        Reply(429, error_body("slow", "requests")),
        Reply(503, error_body("busy", "server_error")),
        Reply(500, ""),
        Reply(404, error_body("The model `nope` does not exist", "invalid_request_error")),
    )
    model = wire.model(server)
    for expected in (RateLimitError, OverloadedError, NetworkError, APIError):
        with pytest.raises(expected) as caught:
            await collect(model, ask("x"))
        assert caught.value.provider == model.provider
    assert "does not exist" in str(caught.value)
    assert resent_unchanged(server.bodies, 4)
    assert wire.sent(server.bodies[0]) == wire.asked("x")


async def test_context_overflow_with_openais_message(wire: Wire, server: OpenAIServer) -> None:
    server.add(overflow_reply())
    with pytest.raises(ContextOverflowError) as caught:
        await collect(wire.model(server), ask("x" * 100))
    error = caught.value
    assert OVERFLOW_MESSAGE in str(error)
    assert (error.status_code, error.context_window, error.requested_tokens) == (400, 8192, 8227)
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x" * 100)]


async def test_responses_style_overflow_message(wire: Wire, server: OpenAIServer) -> None:
    body = error_body(
        "Your input exceeds the context window of this model. Please adjust your input "
        "and try again.",
        "invalid_request_error",
        "context_length_exceeded",
        "input",
    )
    server.add(Reply(400, body))
    with pytest.raises(ContextOverflowError):
        await collect(wire.model(server), ask("x"))
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x")]


@pytest.mark.parametrize("status", [400, 413])
async def test_empty_400_or_413_is_overflow(wire: Wire, server: OpenAIServer, status: int) -> None:
    server.add(Reply(status, ""))
    with pytest.raises(ContextOverflowError):
        await collect(wire.model(server), ask("x"))
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x")]


async def test_overflow_through_the_agent_compacts_and_retries_once(
    wire: Wire, server: OpenAIServer
) -> None:
    history: list[Message] = []
    for turn in range(30):
        history.append(UserMessage.of(f"question {turn} " + "detail " * 200))
        history.append(AssistantMessage([TextContent(f"answer {turn} " + "words " * 200)], "stop"))
    server.add(overflow_reply(), wire.text("Short answer"))
    bot = Agent(wire.model(server), history=history, execution=Execution(retry=FAST_RETRY))
    events = Recorder()
    bot.subscribe(events)
    result = await bot.run("and now?")
    assert result.text == "Short answer"
    assert len(events.of(ContextCompacted)) == 1
    assert events.of(Retry) == []
    first, second = (len(json.dumps(r.body)) for r in server.requests)
    assert second < first
    for body in server.bodies:
        model, stream, messages = wire.sent(body)
        assert (model, stream, messages[-1]) == (wire.default_model, True, ("user", "and now?"))
    # Overflowing twice is not retried again: the run ends with the overflow.
    server.add(overflow_reply(), overflow_reply(), wire.text("never"))
    again = await bot.run("more?")
    assert again.stop_reason == "error"
    assert "context_overflow" in (again.error or "")
    assert len(server.requests) == 4


async def test_401_is_auth_and_never_retried(wire: Wire, server: OpenAIServer) -> None:
    body = error_body(
        "Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key"
    )
    server.add(Reply(401, body), wire.text("never"))
    with pytest.raises(AuthError, match="Incorrect API key"):
        await collect(wire.model(server), ask("x"))
    server.plans.clear()
    server.add(Reply(401, body), wire.text("never"))
    bot, events = agent(wire, server)
    result = await bot.run("hi")
    assert result.stop_reason == "error"
    assert "auth" in (result.error or "")
    assert events.of(Retry) == []
    # one from each attempt above, no retry
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x"), wire.asked("hi")]


async def test_in_stream_error_is_retried_like_its_http_twin(
    wire: Wire, server: OpenAIServer
) -> None:
    server.add(
        wire.in_stream_error("The server had an error processing your request.", "server_error")
    )
    server.add(wire.text("Second time lucky"))
    bot, events = agent(wire, server)
    result = await bot.run("hi")
    assert result.text == "Second time lucky"
    assert [r.error_kind for r in events.of(Retry)] == ["network"]
    assert "error processing your request" in events.of(Retry)[0].error_message
    assert resent_unchanged(server.bodies, 2)
    assert wire.sent(server.bodies[0]) == wire.asked("hi")


async def test_in_stream_rate_limit_and_overflow(wire: Wire, server: OpenAIServer) -> None:
    server.add(wire.in_stream_error("Rate limit reached", "rate_limit_exceeded"))
    server.add(wire.in_stream_error(OVERFLOW_MESSAGE, "context_length_exceeded"))
    model = wire.model(server)
    with pytest.raises(RateLimitError):
        await collect(model, ask("x"))
    with pytest.raises(ContextOverflowError):
        await collect(model, ask("x"))
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x")] * 2


async def test_connection_cut_mid_stream_is_retried(wire: Wire, server: OpenAIServer) -> None:
    cut = wire.no_terminator("Half an ans")
    server.add(Stream(cut.pieces, cut=True))
    with pytest.raises(NetworkError, match="broke mid-stream"):
        await collect(wire.model(server), ask("x"))
    server.add(Stream(cut.pieces, cut=True), wire.text("A whole answer"))
    bot, events = agent(wire, server)
    result = await bot.run("hi")
    assert result.text == "A whole answer"
    assert [r.error_kind for r in events.of(Retry)] == ["network"]
    # The partial text streamed, then the retry streamed the whole answer.
    texts = [e.delta.text for e in events.of(MessageUpdate)]
    assert texts[0] == "Half an ans"
    assert texts[-1] == "A whole answer"
    # The partial answer was not sent back: the retry's request is the first one's.
    assert wire.sent(server.bodies[0]) == wire.asked("x")
    assert resent_unchanged(server.bodies[1:], 2)
    assert wire.sent(server.bodies[1]) == wire.asked("hi")


async def test_clean_end_without_terminator_is_a_cut(wire: Wire, server: OpenAIServer) -> None:
    server.add(wire.no_terminator("Looks ", "fine"))
    with pytest.raises(NetworkError, match="the stream ended before"):
        await collect(wire.model(server), ask("x"))
    server.add(wire.no_terminator("Looks ", "fine"), wire.text("Complete"))
    bot, events = agent(wire, server)
    assert (await bot.run("hi")).text == "Complete"
    assert [r.error_kind for r in events.of(Retry)] == ["network"]
    assert wire.sent(server.bodies[0]) == wire.asked("x")
    assert resent_unchanged(server.bodies[1:], 2)
    assert wire.sent(server.bodies[1]) == wire.asked("hi")


async def test_a_stalled_stream_times_out_as_a_network_error(
    wire: Wire, server: OpenAIServer
) -> None:
    stalled = wire.text("never", " finished")
    server.add(Stream(stalled.pieces, delay_s=0.5))
    with pytest.raises(NetworkError, match="in time"):
        await collect(wire.model(server, timeout_s=0.1), ask("x"))
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("x")]


async def test_unreachable_server_is_a_network_error(wire: Wire, server: OpenAIServer) -> None:
    server.url = "http://127.0.0.1:9/v1"  # discard port: nothing listens
    with pytest.raises(NetworkError, match="could not reach"):
        await collect(wire.model(server), ask("x"))


async def test_malformed_tool_json_becomes_an_error_result_the_model_corrects(
    wire: Wire, server: OpenAIServer
) -> None:
    seen: list[tuple[int, int]] = []

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        seen.append((a, b))
        return a + b

    server.add(
        wire.calls(Call("call_bad", "add", ('{"a": 2,', ' "b": '))),
        wire.calls(Call("call_good", "add", ('{"a": 2, "b": 3}',))),
        wire.text("2 + 3 = 5"),
    )
    bot, _ = agent(wire, server, tools=[add])
    result = await bot.run("2+3?")
    assert result.text == "2 + 3 = 5"
    assert seen == [(2, 3)]
    second = server.requests[1].body
    error = wire.tool_output(second, "call_bad")
    assert error is not None
    assert "not valid JSON" in error
    # The malformed arguments went back exactly as the model wrote them, not truncated.
    assert wire.replayed_arguments(second, "call_bad") == '{"a": 2, "b": '
    assert wire.tool_output(server.requests[2].body, "call_good") == "5"


async def test_a_slow_stream_is_cancelled_promptly(wire: Wire, server: OpenAIServer) -> None:
    pieces = [f"word{i} " for i in range(400)]
    slow = wire.text(*pieces)
    server.add(Stream(slow.pieces, delay_s=0.05))
    bot, events = agent(wire, server)
    streaming = asyncio.Event()
    bot.subscribe(lambda event: streaming.set() if isinstance(event, MessageUpdate) else None)
    run = asyncio.ensure_future(bot.run("Tell me a long story"))
    await asyncio.wait_for(streaming.wait(), timeout=10)
    bot.abort()
    result = await asyncio.wait_for(run, timeout=10)
    assert result.stop_reason == "aborted"
    assert 0 < len(events.of(MessageUpdate)) < len(pieces)
    # Tiller closed the connection: the server saw the client go away.
    for _ in range(500):
        if server.disconnects:
            break
        await asyncio.sleep(0.01)
    assert server.disconnects == 1
    assert [wire.sent(b) for b in server.bodies] == [wire.asked("Tell me a long story")]
