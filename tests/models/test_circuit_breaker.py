"""Circuit breakers per provider endpoint, with a fake clock (no sleeping)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tiller.agent import Agent
from tiller.errors import (
    APIError,
    AuthError,
    CircuitOpenError,
    ContextOverflowError,
    ModelError,
    NetworkError,
    OverloadedError,
    RateLimitError,
    UsageError,
)
from tiller.events import AgentEvent, AgentStart, CircuitStateChanged, TextDelta
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, TextContent, UserMessage
from tiller.models import Fail, FunctionModel, ModelRequest, Reply, RetryPolicy, ScriptedModel
from tiller.models.circuit_breaker import (
    CircuitBreaker,
    CircuitBreakerModel,
    CircuitBreakerSettings,
    circuit_breakers,
    is_health_failure,
    with_circuit_breaker,
)
from tiller.models.registry import _FACTORIES, register_provider, resolve_model

URL = "http://127.0.0.1:9/v1"
REQUEST = ModelRequest([UserMessage.of("hi")])


class FakeClock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def breaker(clock: FakeClock, threshold: int = 3, open_s: float = 30.0, trials: int = 1) -> Any:
    settings = CircuitBreakerSettings(threshold, open_s, trials)
    return CircuitBreaker("scripted", URL, settings, clock=clock)


async def drain(model: Any) -> tuple[list[Any], Exception | None]:
    """Every item the stream yielded, and the error it ended with (None if it finished)."""
    items: list[Any] = []
    try:
        async for item in model.stream(REQUEST):
            items.append(item)
    except ModelError as error:
        return items, error
    return items, None


def changes(items: list[Any]) -> list[tuple[str, str]]:
    return [(i.old_state, i.new_state) for i in items if isinstance(i, CircuitStateChanged)]


def down(n: int) -> list[Fail]:
    return [Fail(NetworkError("connection refused")) for _ in range(n)]


async def test_health_failures_in_a_row_open_the_circuit_with_an_event() -> None:
    clock = FakeClock()
    model = with_circuit_breaker(ScriptedModel(down(3), endpoint=URL), breaker(clock))
    for _ in range(2):
        items, error = await drain(model)
        assert isinstance(error, NetworkError)
        assert items == []
    items, error = await drain(model)
    assert isinstance(error, NetworkError)  # the call's own error, after the event
    [event] = items
    assert isinstance(event, CircuitStateChanged)
    assert (event.provider, event.endpoint) == ("scripted", URL)
    assert (event.old_state, event.new_state, event.failures) == ("closed", "open", 3)
    assert event.retry_at == 1_030.0
    assert "3 failures in a row" in event.reason
    assert "connection refused" in event.reason


async def test_an_open_circuit_fails_fast_without_calling_the_model() -> None:
    clock = FakeClock()
    inner = ScriptedModel([*down(3), "never sent"], endpoint=URL)
    model = with_circuit_breaker(inner, breaker(clock))
    for _ in range(3):
        await drain(model)
    clock.now += 10
    items, error = await drain(model)
    assert items == []
    assert isinstance(error, CircuitOpenError)
    assert len(inner.requests) == 3
    assert inner.remaining == 1
    assert (error.kind, error.retryable, error.retry_at) == ("circuit_open", False, 1_030.0)
    assert error.endpoint == URL
    assert error.provider == "scripted"
    assert "tried again in 20 s" in str(error)
    assert "another model" in str(error)
    assert not RetryPolicy().should_retry(error, 0)


async def test_after_the_open_period_one_trial_success_closes_it() -> None:
    clock = FakeClock()
    gate = breaker(clock)
    model = with_circuit_breaker(ScriptedModel([*down(3), "back"], endpoint=URL), gate)
    for _ in range(3):
        await drain(model)
    clock.now += 30
    items, error = await drain(model)
    assert error is None
    assert changes(items) == [("open", "half_open"), ("half_open", "closed")]
    assert isinstance(items[-1], AssistantMessage)
    assert items[-1].text == "back"
    assert gate.state == "closed"
    assert gate.failures == 0


async def test_a_failed_trial_opens_it_again_for_a_new_period() -> None:
    clock = FakeClock()
    model = with_circuit_breaker(ScriptedModel([*down(4), "back"], endpoint=URL), breaker(clock))
    for _ in range(3):
        await drain(model)
    clock.now += 31
    items, error = await drain(model)
    assert isinstance(error, NetworkError)
    assert changes(items) == [("open", "half_open"), ("half_open", "open")]
    assert items[-1].retry_at == 1_061.0
    assert "a trial call failed" in items[-1].reason
    clock.now += 29
    assert isinstance((await drain(model))[1], CircuitOpenError)
    clock.now += 1
    assert (await drain(model))[1] is None


@pytest.mark.parametrize(
    "error",
    [
        AuthError("bad key", status_code=401),
        ContextOverflowError("prompt is too long", status_code=400),
        APIError("bad request", status_code=400),
        APIError("not found", status_code=404),
        ValueError("a bug, not the endpoint"),
    ],
)
async def test_failures_that_say_nothing_of_health_do_not_trip_it(error: Exception) -> None:
    gate = breaker(FakeClock(), threshold=2)
    model = with_circuit_breaker(FunctionModel(lambda _: Fail(error), endpoint=URL), gate)
    for _ in range(5):
        try:
            _, failure = await drain(model)
        except ValueError as bug:
            failure = bug
        assert failure is error
    assert gate.state == "closed"
    assert gate.failures == 0


@pytest.mark.parametrize(
    ("error", "health"),
    [
        (NetworkError("reset"), True),
        (OverloadedError("busy", status_code=529), True),
        (RateLimitError("slow down", status_code=429), True),
        (APIError("bad gateway", status_code=502), True),
        (APIError("teapot", status_code=418), False),
        (AuthError("no", status_code=403), False),
        (CircuitOpenError("open"), False),
        (RuntimeError("bug"), False),
    ],
)
def test_which_failures_are_health_failures(error: Exception, health: bool) -> None:
    assert is_health_failure(error) is health


async def test_a_success_resets_the_count() -> None:
    gate = breaker(FakeClock(), threshold=3)
    model = with_circuit_breaker(ScriptedModel([*down(2), "ok", *down(2)], endpoint=URL), gate)
    for _ in range(5):
        await drain(model)
    assert gate.state == "closed"
    assert gate.failures == 2


def test_an_outcome_from_before_a_state_change_is_ignored() -> None:
    clock = FakeClock()
    gate = breaker(clock, threshold=1)
    slow = gate.admit()  # a long call, still streaming when the circuit opens
    assert gate.failed(gate.admit(), NetworkError("reset")) is not None
    assert gate.succeeded(slow) is None
    assert gate.state == "open"


def test_half_open_lets_through_only_the_trial_calls() -> None:
    clock = FakeClock()
    gate = breaker(clock, threshold=1, trials=2)
    gate.failed(gate.admit(), NetworkError("reset"))
    clock.now += 30
    first, second = gate.admit(), gate.admit()
    assert first.trial
    assert second.trial
    assert first.changed is not None
    with pytest.raises(CircuitOpenError, match="trial call is under way") as caught:
        gate.admit()
    assert caught.value.retry_at is None
    assert gate.succeeded(first) is None  # one of two: still half-open
    changed = gate.succeeded(second)
    assert changed is not None
    assert changed.new_state == "closed"


async def test_an_abandoned_trial_frees_its_place() -> None:
    clock = FakeClock()
    gate = breaker(clock, threshold=1)
    slow = Reply("a long answer", chunk_size=2)
    model = with_circuit_breaker(ScriptedModel([*down(1), slow, "ok"], endpoint=URL), gate)
    await drain(model)
    clock.now += 30
    stream = model.stream(REQUEST)
    assert isinstance(await anext(stream), CircuitStateChanged)  # open -> half_open
    assert isinstance(await anext(stream), TextDelta)
    await stream.aclose()  # type: ignore[attr-defined]
    assert gate.state == "half_open"
    items, error = await drain(model)
    assert error is None
    assert changes(items) == [("half_open", "closed")]


async def test_concurrent_tasks_share_one_trial() -> None:
    clock = FakeClock()
    gate = breaker(clock, threshold=1)
    started = asyncio.Event()
    release = asyncio.Event()

    async def reply(_: ModelRequest) -> str:
        started.set()
        await release.wait()
        return "recovered"

    inner = FunctionModel(reply, endpoint=URL)
    gate.failed(gate.admit(), NetworkError("reset"))
    clock.now += 30
    model = with_circuit_breaker(inner, gate)
    trial = asyncio.create_task(drain(model))
    await started.wait()
    others = await asyncio.gather(*(drain(model) for _ in range(4)))
    assert all(isinstance(error, CircuitOpenError) for _, error in others)
    release.set()
    items, error = await trial
    assert error is None
    assert changes(items)[-1] == ("half_open", "closed")
    assert len(inner.requests) == 1


def test_threads_count_every_failure() -> None:
    gate = breaker(FakeClock(), threshold=10_000)

    def fail_many() -> None:
        for _ in range(500):
            gate.failed(gate.admit(), NetworkError("reset"))

    threads = [threading.Thread(target=fail_many) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gate.failures == 4_000
    assert gate.state == "closed"


def test_settings_are_checked() -> None:
    with pytest.raises(UsageError):
        CircuitBreakerSettings(failure_threshold=0)
    with pytest.raises(UsageError):
        CircuitBreakerSettings(open_duration_s=0)


def test_a_model_without_endpoint_needs_an_explicit_breaker() -> None:
    with pytest.raises(UsageError, match="no endpoint"):
        with_circuit_breaker(ScriptedModel([]))


# ── the shared breakers behind `resolve_model` ──────────────────────────────


@pytest.fixture
def remote_provider() -> Iterator[list[ScriptedModel]]:
    """`remote:NAME` builds a ScriptedModel on the endpoint given as `base_url`."""
    built: list[ScriptedModel] = []

    def factory(name: str, base_url: str = URL) -> ScriptedModel:
        built.append(ScriptedModel(down(5), name=name, context_window=4096, endpoint=base_url))
        return built[-1]

    register_provider("remote", factory)
    settings = circuit_breakers.settings
    circuit_breakers.clear()
    try:
        yield built
    finally:
        del _FACTORIES["remote"]
        circuit_breakers.clear()
        circuit_breakers.configure(settings, enabled=True)


def test_resolved_models_share_their_endpoints_breaker(remote_provider: Any) -> None:
    a = resolve_model("remote:a")
    b = resolve_model("remote:b", base_url=URL + "/")
    other = resolve_model("remote:c", base_url="http://127.0.0.1:10/v1")
    assert isinstance(a, CircuitBreakerModel)
    assert isinstance(b, CircuitBreakerModel)
    assert isinstance(other, CircuitBreakerModel)
    assert a.breaker is b.breaker is circuit_breakers.breaker("scripted", URL)
    assert other.breaker is not a.breaker
    assert (a.name, a.provider, a.endpoint) == ("a", "scripted", URL)
    assert a.context_window == 4096
    assert a.remaining == 5


async def test_failures_through_one_model_open_the_circuit_for_all(remote_provider: Any) -> None:
    circuit_breakers.configure(CircuitBreakerSettings(failure_threshold=2))
    a, b = resolve_model("remote:a"), resolve_model("remote:b")
    await drain(a)
    await drain(b)
    assert isinstance((await drain(a))[1], CircuitOpenError)


def test_opting_out(remote_provider: Any) -> None:
    assert isinstance(resolve_model("remote:a", circuit_breaker=False), ScriptedModel)
    circuit_breakers.configure(enabled=False)
    assert isinstance(resolve_model("remote:a"), ScriptedModel)


def test_models_without_endpoint_and_model_objects_are_left_alone() -> None:
    model = ScriptedModel([], endpoint=URL)
    assert resolve_model(model) is model
    protected = circuit_breakers.protect(model)
    assert circuit_breakers.protect(protected) is protected
    assert circuit_breakers.protect(ScriptedModel([])).__class__ is ScriptedModel


def test_new_settings_reach_existing_breakers(remote_provider: Any) -> None:
    existing = circuit_breakers.breaker("scripted", URL)
    circuit_breakers.configure(CircuitBreakerSettings(7, 60.0, 2))
    assert existing.settings == CircuitBreakerSettings(7, 60.0, 2)


# ── in a real run ───────────────────────────────────────────────────────────


async def test_state_changes_reach_the_runs_events_with_its_loop_id() -> None:
    clock = FakeClock()
    gate = breaker(clock, threshold=2)
    inner = ScriptedModel([*down(2), Reply("back again", chunk_size=3)], endpoint=URL)
    agent = Agent(
        with_circuit_breaker(inner, gate),
        execution=Execution(retry=RetryPolicy(max_retries=4, base_delay_s=0.0)),
    )
    events: list[AgentEvent] = []
    agent.subscribe(events.append)

    result = await agent.run("hello")
    assert result.stop_reason == "error"
    assert result.error is not None
    assert "circuit_open" in result.error
    assert len(inner.requests) == 2  # the third attempt failed fast
    [start] = [e for e in events if isinstance(e, AgentStart)]
    [opened] = [e for e in events if isinstance(e, CircuitStateChanged)]
    assert (opened.old_state, opened.new_state, opened.loop_id) == ("closed", "open", start.loop_id)
    assert [e.type for e in events].count("retry") == 2

    events.clear()
    clock.now += 30
    result = await agent.run("again")
    assert result.text == "back again"
    [start] = [e for e in events if isinstance(e, AgentStart)]
    changed = [e for e in events if isinstance(e, CircuitStateChanged)]
    assert [(e.old_state, e.new_state) for e in changed] == [
        ("open", "half_open"),
        ("half_open", "closed"),
    ]
    assert {e.loop_id for e in changed} == {start.loop_id}
    # The events are not part of the answer.
    answer = result.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert answer.content == [TextContent("back again")]
