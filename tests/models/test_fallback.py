"""`FallbackModel`: the next model on a lasting failure or an open breaker, never mid-reply."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import tiller
from tiller.agent import Agent
from tiller.errors import (
    AllModelsFailedError,
    APIError,
    AuthError,
    ContextOverflowError,
    ModelError,
    NetworkError,
    OverloadedError,
    UsageError,
)
from tiller.events import AgentEvent, CircuitStateChanged, TextDelta
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, UserMessage
from tiller.models import (
    Fail,
    FallbackModel,
    FunctionModel,
    ModelRequest,
    Reply,
    RetryPolicy,
    ScriptedModel,
)
from tiller.models.circuit_breaker import (
    CircuitBreaker,
    CircuitBreakerSettings,
    with_circuit_breaker,
)

REQUEST = ModelRequest([UserMessage.of("hi")])
URL = "http://127.0.0.1:9/v1"


async def drain(model: Any) -> tuple[list[Any], Exception | None]:
    items: list[Any] = []
    try:
        async for item in model.stream(REQUEST):
            items.append(item)
    except ModelError as error:
        return items, error
    return items, None


def breaker(threshold: int) -> CircuitBreaker:
    return CircuitBreaker("scripted", URL, CircuitBreakerSettings(failure_threshold=threshold))


async def test_a_lasting_failure_moves_to_the_next_model() -> None:
    primary = ScriptedModel([Fail(AuthError("key refused"))], name="big")
    secondary = ScriptedModel([Reply("from the second", chunk_size=5)], name="small")
    model = FallbackModel([primary, secondary])
    items, error = await drain(model)
    assert error is None
    answer = items[-1]
    assert isinstance(answer, AssistantMessage)
    assert answer.text == "from the second"
    assert (answer.model, answer.provider) == ("small", "scripted")  # who actually answered
    assert (model.name, model.provider) == ("scripted:big, scripted:small", "fallback")
    assert primary.requests == [REQUEST]
    assert secondary.requests == [REQUEST]


async def test_an_open_breaker_moves_on_without_calling_the_model() -> None:
    gate = breaker(threshold=1)
    gate.failed(gate.admit(), NetworkError("down"))
    primary = ScriptedModel(["never"], endpoint=URL)
    model = FallbackModel([with_circuit_breaker(primary, gate), ScriptedModel(["backup"])])
    items, error = await drain(model)
    assert error is None
    assert items[-1].text == "backup"
    assert primary.requests == []


async def test_a_failure_that_opens_the_breaker_moves_on_at_once() -> None:
    primary = with_circuit_breaker(
        ScriptedModel([Fail(OverloadedError("529"))], endpoint=URL), breaker(threshold=1)
    )
    model = FallbackModel([primary, ScriptedModel(["backup"])])
    items, error = await drain(model)
    assert error is None
    assert items[-1].text == "backup"
    [event] = [i for i in items if isinstance(i, CircuitStateChanged)]  # passed through
    assert event.new_state == "open"


async def test_a_passing_failure_goes_to_the_loops_retry_not_the_next_model() -> None:
    secondary = ScriptedModel(["backup"])
    model = FallbackModel([ScriptedModel([Fail(NetworkError("reset"))]), secondary])
    _, error = await drain(model)
    assert isinstance(error, NetworkError)
    assert secondary.requests == []


@pytest.mark.parametrize("late", [NetworkError("cut mid-stream"), AuthError("revoked")])
async def test_after_streaming_a_delta_the_reply_is_that_models(late: ModelError) -> None:
    primary = ScriptedModel([Reply("partial answer", chunk_size=4, fail=late)])
    secondary = ScriptedModel(["a whole other answer"])
    items, error = await drain(FallbackModel([primary, secondary]))
    assert error is late
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "partial answer"
    assert secondary.requests == []


async def test_cancellation_does_not_move_on() -> None:
    started = asyncio.Event()

    async def never_answers(_: ModelRequest) -> str:
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    secondary = ScriptedModel(["backup"])
    task = asyncio.create_task(drain(FallbackModel([FunctionModel(never_answers), secondary])))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert secondary.requests == []


async def test_when_all_fail_the_error_names_each_model_and_its_failure() -> None:
    gate = breaker(threshold=1)
    gate.failed(gate.admit(), NetworkError("down"))
    model = FallbackModel(
        [
            with_circuit_breaker(ScriptedModel([], name="a", endpoint=URL), gate),
            ScriptedModel([Fail(AuthError("key refused"))], name="b"),
            FunctionModel(lambda _: Fail(APIError("bad request", status_code=400)), name="c"),
        ]
    )
    _, error = await drain(model)
    assert isinstance(error, AllModelsFailedError)
    assert not error.retryable
    text = str(error)
    assert "scripted:a: circuit_open:" in text
    assert "scripted:b: auth: key refused" in text
    assert "function:c: api: bad request" in text
    assert [(label, type(e).__name__) for label, e in error.failures] == [
        ("scripted:a", "CircuitOpenError"),
        ("scripted:b", "AuthError"),
        ("function:c", "APIError"),
    ]


async def test_when_all_overflow_the_loop_can_compact_for_the_widest() -> None:
    model = FallbackModel(
        [
            ScriptedModel([Fail(ContextOverflowError("too long", context_window=8_000))]),
            ScriptedModel(
                [
                    Fail(
                        ContextOverflowError(
                            "too long", requested_tokens=50_000, context_window=32_000
                        )
                    )
                ]
            ),
        ]
    )
    _, error = await drain(model)
    assert isinstance(error, ContextOverflowError)
    assert (error.requested_tokens, error.context_window) == (50_000, 32_000)


async def test_a_failure_reported_in_the_final_message_moves_on() -> None:
    reported = AssistantMessage([], "error", error_message="upstream exploded")
    model = FallbackModel([ScriptedModel([reported]), ScriptedModel(["backup"])])
    items, error = await drain(model)
    assert error is None
    assert items[-1].text == "backup"


async def test_model_strings_are_resolved(tmp_path: Path) -> None:
    script = tmp_path / "second.json"
    script.write_text(json.dumps(["from the file"]))
    model = FallbackModel([ScriptedModel([Fail(AuthError("no"))]), f"scripted:{script}"])
    items, _ = await drain(model)
    assert items[-1].text == "from the file"
    assert model.name == "scripted:scripted, scripted:second"


def test_it_needs_a_model_and_is_exported() -> None:
    with pytest.raises(UsageError):
        FallbackModel([])
    assert tiller.FallbackModel is FallbackModel


async def test_in_a_run_retries_open_the_breaker_then_the_next_model_answers() -> None:
    primary = ScriptedModel([Fail(NetworkError("reset")), Fail(NetworkError("reset"))], name="p")
    secondary = ScriptedModel([Reply("the backup answers", chunk_size=4)], name="s")
    model = FallbackModel([with_circuit_breaker(primary, breaker(threshold=2)), secondary])
    agent = Agent(model, execution=Execution(retry=RetryPolicy(max_retries=4, base_delay_s=0.0)))
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    result = await agent.run("hello")
    assert result.text == "the backup answers"
    answer = result.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert (answer.model, answer.provider) == ("s", "scripted")
    types = [e.type for e in events]
    assert types.count("retry") == 1  # the second failure opened the breaker: no more retries
    assert "circuit_state_changed" in types
    primary.assert_complete()
