"""A circuit breaker per provider endpoint: stop calling a server that keeps failing.

    closed     calls go through; `failure_threshold` health failures in a row open it
    open       calls fail fast with `CircuitOpenError` for `open_duration_s`
    half_open  up to `half_open_trials` trial calls go through at once; when that many
               have succeeded it closes, and a health failure opens it again

Health failures are those that say the endpoint is unwell: network errors (refused
or dropped connections, a stream cut before its terminator, timeouts, 408),
overloaded (503/529), rate limited (429: the endpoint refuses us for now), and any
other 5xx. Auth, context overflow and other 4xx refusals say nothing about the
endpoint's health, so they neither count nor reset the count; nor do cancelled
calls, streams their reader abandoned, or bugs. A success resets the count.

Breakers are shared: `circuit_breakers` (process-wide) holds one per (provider,
endpoint), so every run against the same server sees, and feeds, the same state.
`resolve_model` wraps each model it builds that has an `endpoint`. The wrapper
yields a `CircuitStateChanged` event into the stream of the call that caused the
change, and the loop emits it with the run's `loop_id`. Calls that lose a race
(their outcome arrives after the state changed under them) are ignored.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from tiller.errors import CircuitOpenError, ModelError, UsageError
from tiller.events import CircuitState, CircuitStateChanged
from tiller.messages import AssistantMessage
from tiller.models.base import Model, ModelRequest, StreamItem

Clock = Callable[[], float]  # Unix time in seconds, like `time.time`
_HEALTH_KINDS = frozenset({"network", "overloaded", "rate_limited"})


def is_health_failure(error: BaseException) -> bool:
    """True when `error` says the endpoint is unwell (see the module docstring)."""
    if not isinstance(error, ModelError) or isinstance(error, CircuitOpenError):
        return False
    if error.kind in _HEALTH_KINDS:
        return True
    return error.kind == "api" and error.status_code is not None and error.status_code >= 500


@dataclass(slots=True, frozen=True)
class CircuitBreakerSettings:
    failure_threshold: int = 5  # health failures in a row that open the circuit
    open_duration_s: float = 30.0  # how long it stays open before a trial call
    half_open_trials: int = 1  # trial calls let through at once; their successes close it

    def __post_init__(self) -> None:
        if self.failure_threshold < 1 or self.half_open_trials < 1:
            raise UsageError("failure_threshold and half_open_trials must be at least 1")
        if not self.open_duration_s > 0:
            raise UsageError("open_duration_s must be more than 0 seconds")


@dataclass(slots=True, frozen=True)
class Permit:
    """Leave to make one call; hand it back with the call's outcome."""

    generation: int  # the breaker's state period it was given in
    trial: bool  # a half-open trial call
    changed: CircuitStateChanged | None  # the change admitting it caused (open -> half_open)


class CircuitBreaker:
    """The state of one endpoint. Thread-safe: every method holds a lock, briefly."""

    def __init__(
        self,
        provider: str,
        endpoint: str,
        settings: CircuitBreakerSettings | None = None,
        *,
        clock: Clock = time.time,
    ) -> None:
        self.provider = provider
        self.endpoint = endpoint
        self._settings = settings or CircuitBreakerSettings()
        self._clock = clock
        self._lock = threading.Lock()
        self._state: CircuitState = "closed"
        self._generation = 0  # bumped on every state change: outcomes of older calls are stale
        self._failures = 0
        self._last_failure = ""
        self._opened_at = 0.0
        self._trials = 0  # half-open trial calls under way
        self._successes = 0  # half-open trial calls that succeeded

    @property
    def state(self) -> CircuitState:
        with self._lock:
            return self._state

    @property
    def failures(self) -> int:
        with self._lock:
            return self._failures

    @property
    def settings(self) -> CircuitBreakerSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: CircuitBreakerSettings) -> None:
        with self._lock:
            self._settings = settings

    def admit(self) -> Permit:
        """A permit to call the endpoint, or `CircuitOpenError` while it is open."""
        with self._lock:
            changed = None
            if self._state == "open":
                now = self._clock()
                self._opened_at = min(self._opened_at, now)  # the clock stepped back
                retry_at = self._opened_at + self._settings.open_duration_s
                if now < retry_at:
                    raise self._open_error(retry_at - now, retry_at)
                changed = self._move("half_open", "the open period is over: trying a call")
            if self._state == "half_open":
                if self._trials + self._successes >= self._settings.half_open_trials:
                    raise self._open_error(None, None)
                self._trials += 1
                return Permit(self._generation, True, changed)
            return Permit(self._generation, False, None)

    def succeeded(self, permit: Permit) -> CircuitStateChanged | None:
        with self._lock:
            if permit.generation != self._generation:
                return None
            if self._state == "closed":
                self._failures = 0
                return None
            self._trials -= 1
            self._successes += 1
            if self._successes >= self._settings.half_open_trials:
                return self._move("closed", f"{self._successes} trial call(s) succeeded")
            return None

    def failed(self, permit: Permit, error: BaseException) -> CircuitStateChanged | None:
        """Record a failed call; only health failures count (see `is_health_failure`)."""
        if not is_health_failure(error):
            self.released(permit)
            return None
        with self._lock:
            if permit.generation != self._generation:
                return None
            self._failures += 1
            self._last_failure = " ".join(str(error).split())[:200]
            if self._state == "half_open":
                return self._move("open", f"a trial call failed: {self._last_failure}")
            if self._failures >= self._settings.failure_threshold:
                return self._move(
                    "open", f"{self._failures} failures in a row; last: {self._last_failure}"
                )
            return None

    def released(self, permit: Permit) -> None:
        """The call ended with no verdict on the endpoint's health (cancelled, refused, ...)."""
        with self._lock:
            if permit.trial and permit.generation == self._generation:
                self._trials -= 1

    def _move(self, new: CircuitState, reason: str) -> CircuitStateChanged:
        """Change state (the lock is held) and describe the change."""
        old, failures = self._state, self._failures
        self._state = new
        self._generation += 1
        self._trials = self._successes = 0
        retry_at = None
        if new == "open":
            self._opened_at = self._clock()
            retry_at = self._opened_at + self._settings.open_duration_s
        elif new == "closed":
            self._failures = 0
        return CircuitStateChanged(
            provider=self.provider,
            endpoint=self.endpoint,
            old_state=old,
            new_state=new,
            reason=reason,
            failures=failures,
            retry_at=retry_at,
        )

    def _open_error(self, wait_s: float | None, retry_at: float | None) -> CircuitOpenError:
        where = f"{self.provider} at {self.endpoint}"
        if wait_s is None or retry_at is None:
            message = (
                f"{where} is recovering from failures: a trial call is under way and other "
                "calls fail fast until it succeeds; try again in a moment, or use another model"
            )
        else:
            clock_time = time.strftime("%H:%M:%S", time.localtime(retry_at))
            message = (
                f"{where} is failing ({self._failures} failures in a row; last: "
                f"{self._last_failure}), so calls to it fail fast; it will be tried again in "
                f"{math.ceil(wait_s)} s (at {clock_time}). Wait, or use another model"
            )
        return CircuitOpenError(
            message, provider=self.provider, endpoint=self.endpoint, retry_at=retry_at
        )


class CircuitBreakerModel:
    """A model whose calls go through `breaker`; in all else it is the model it wraps."""

    def __init__(self, model: Model, breaker: CircuitBreaker) -> None:
        self.model = model
        self.breaker = breaker

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def provider(self) -> str:
        return self.model.provider

    @property
    def endpoint(self) -> str:
        return endpoint_of(self.model)

    def __repr__(self) -> str:
        return f"CircuitBreakerModel({self.model!r})"

    def __getattr__(self, attribute: str) -> Any:
        # Anything else the wrapped model offers (`context_window`, ...), as it is.
        if attribute.startswith("__") or attribute in ("model", "breaker"):
            raise AttributeError(attribute)
        return getattr(self.model, attribute)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        breaker = self.breaker
        permit = breaker.admit()
        if permit.changed is not None:
            yield permit.changed
        settled = False
        stream = None
        try:
            stream = self.model.stream(request)
            async for item in stream:
                if isinstance(item, AssistantMessage):
                    settled = True
                    if item.stop_reason == "error":  # reported, not raised: no verdict
                        breaker.released(permit)
                    elif (changed := breaker.succeeded(permit)) is not None:
                        yield changed
                yield item
        except Exception as error:
            if not settled:
                settled = True
                if (changed := breaker.failed(permit, error)) is not None:
                    yield changed
            raise
        finally:
            if not settled:  # cancelled, or the reader stopped early
                breaker.released(permit)
            await close_stream(stream)


async def close_stream(stream: AsyncIterator[StreamItem] | None) -> None:
    """Finish a model stream now, not in a finalizer later (a no-op once it has ended)."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


def endpoint_of(model: object) -> str:
    """The model's `endpoint` (its base URL), or "" for models that call no server."""
    endpoint = getattr(model, "endpoint", "")
    return endpoint if isinstance(endpoint, str) else ""


class CircuitBreakerRegistry:
    """One breaker per (provider, endpoint), shared by every model that calls it."""

    def __init__(
        self,
        settings: CircuitBreakerSettings | None = None,
        *,
        enabled: bool = True,
        clock: Clock = time.time,
    ) -> None:
        self.settings = settings or CircuitBreakerSettings()
        self.enabled = enabled
        self._clock = clock
        self._lock = threading.Lock()
        self._breakers: dict[tuple[str, str], CircuitBreaker] = {}

    def configure(
        self, settings: CircuitBreakerSettings | None = None, *, enabled: bool | None = None
    ) -> None:
        """New thresholds for every breaker, existing ones too; `enabled=False` opts out
        (models resolved afterwards are not wrapped)."""
        with self._lock:
            if settings is not None:
                self.settings = settings
                for breaker in self._breakers.values():
                    breaker.settings = settings
            if enabled is not None:
                self.enabled = enabled

    def breaker(self, provider: str, endpoint: str) -> CircuitBreaker:
        key = (provider, endpoint.rstrip("/"))
        with self._lock:
            breaker = self._breakers.get(key)
            if breaker is None:
                breaker = CircuitBreaker(*key, self.settings, clock=self._clock)
                self._breakers[key] = breaker
            return breaker

    def protect(self, model: Model) -> Model:
        """`model` behind its endpoint's shared breaker; as it is when it has no endpoint,
        is already protected, or breakers are disabled."""
        endpoint = endpoint_of(model)
        if not self.enabled or not endpoint or isinstance(model, CircuitBreakerModel):
            return model
        return CircuitBreakerModel(model, self.breaker(model.provider, endpoint))

    def clear(self) -> None:
        """Forget every breaker (their state starts over)."""
        with self._lock:
            self._breakers.clear()


circuit_breakers = CircuitBreakerRegistry()
"""The process-wide registry `resolve_model` uses."""


def with_circuit_breaker(model: Model, breaker: CircuitBreaker | None = None) -> Model:
    """`model` behind `breaker`, or behind its endpoint's shared breaker when None."""
    if breaker is not None:
        return CircuitBreakerModel(model, breaker)
    endpoint = endpoint_of(model)
    if not endpoint:
        raise UsageError(
            f"model {model.provider}:{model.name} has no endpoint to guard; "
            "pass a CircuitBreaker explicitly"
        )
    return CircuitBreakerModel(model, circuit_breakers.breaker(model.provider, endpoint))
