"""`FallbackModel`: models tried in order until one answers.

    model = FallbackModel(["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", "local:smollm2"])

Every call starts with the first model, and moves to the next when a model fails
before streaming any part of its reply with

- a failure that retrying will not fix (auth, context overflow, a refused request,
  a failure it reported in its final message), or
- a server it could not connect to at all (connection refused, host unknown, no
  route, no connection within the connect timeout): nothing reached the server, so
  the next model is tried at once, or
- an open circuit breaker (`CircuitOpenError`), or a failure that just opened it.

Other retryable failures (a connection that broke after it was made, overloaded,
rate limited) go up to the loop, whose retry policy tries the call again, from the
first model: a passing hiccup should not move a run off its model. So do the
retryable failures of the last model, which has no next one to move to.

A chain that starts offline therefore answers on its first call from the first
model that runs here (the embedded `local:smollm2`, say), with no retry waits:
each model that cannot be reached costs one connection attempt per call. Each of
those attempts counts against that endpoint's circuit breaker, so once it opens,
calls skip the model without trying to connect until its open period ends.

Once a model has streamed a delta, the reply is that model's: a failure after
that goes up as it is (the loop keeps the partial reply, as for any model, and
retries the call if the failure is retryable). It is never restarted on the next
model, which would stream a second, different beginning of the same reply.
Cancellation is never a reason to move on.

When every model fails, `AllModelsFailedError` names each model and its failure;
if every one overflowed its context window it is a `ContextOverflowError`, so the
loop compacts and tries again. The reply is the answering model's own message:
its `model` and `provider` say who answered. Events a model's stream yields (such
as circuit breaker changes) pass through.

A model string whose provider needs an API key that is not set (`OPENAI_API_KEY`,
...) is left out of the chain with a warning (logger `tiller.models`) naming the
variable to set; a chain left with no model at all is a `ConfigError`.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import AsyncIterator, Sequence

from tiller.errors import (
    AllModelsFailedError,
    APIError,
    ConfigError,
    ContextOverflowError,
    ModelError,
    NetworkError,
    UsageError,
    is_context_overflow_message,
)
from tiller.events import CircuitStateChanged, Event
from tiller.messages import AssistantMessage
from tiller.models.base import Model, ModelRequest, StreamItem
from tiller.models.circuit_breaker import close_stream
from tiller.models.registry import missing_key, resolve_model

log = logging.getLogger("tiller.models")


class FallbackModel:
    """The first of `models` that answers; model strings are resolved by the registry."""

    def __init__(self, models: Sequence[Model | str]) -> None:
        if not models:
            raise UsageError("FallbackModel needs at least one model")
        resolved: list[Model] = []
        unset: list[tuple[str, str]] = []  # (model string, the key variable to set)
        for entry in models:
            try:
                resolved.append(resolve_model(entry))
            except ConfigError:
                if not isinstance(entry, str) or (variable := missing_key(entry)) is None:
                    raise
                log.warning(
                    "fallback: leaving out %s: the %s provider needs an API key; set %s to use it",
                    entry,
                    entry.partition(":")[0],
                    variable,
                )
                unset.append((entry, variable))
        if not resolved:
            each = ", ".join(f"{entry} (set {variable})" for entry, variable in unset)
            raise ConfigError(f"no model of the fallback chain can run: {each}")
        self.models: tuple[Model, ...] = tuple(resolved)
        self._labels = tuple(f"{m.provider}:{m.name}" for m in self.models)

    @property
    def name(self) -> str:
        return ", ".join(self._labels)

    @property
    def provider(self) -> str:
        return "fallback"

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        failures: list[tuple[str, ModelError]] = []
        last = len(self.models) - 1
        for position, (label, model) in enumerate(zip(self._labels, self.models, strict=True)):
            streamed = opened = False
            stream = None
            try:
                stream = model.stream(request)
                async for item in stream:
                    if isinstance(item, Event):
                        opened = opened or _opens(item)
                        yield item
                    elif isinstance(item, AssistantMessage):
                        if item.stop_reason == "error" and not streamed:
                            raise _reported(item, label)
                        yield item
                        return
                    else:
                        streamed = True
                        yield item
            except ModelError as error:
                passing = error.retryable and not opened
                if passing and position < last and never_connected(error):
                    passing = False  # nothing reached the server: the next model, at once
                if streamed or passing:
                    raise
                failures.append((label, error))
            finally:
                await close_stream(stream)
        raise _all_failed(failures)


def never_connected(error: BaseException) -> bool:
    """True when `error` is a network failure from before any connection was made:
    refused, host unknown, unreachable, or no connection within the connect timeout.

    Providers raise their `NetworkError` from what the HTTP layer raised, so the
    chain of causes says which it was.
    """
    if not isinstance(error, NetworkError):
        return False
    kinds: list[type[BaseException]] = [ConnectionRefusedError, socket.gaierror]
    for module in ("httpx2", "httpx", "httpcore"):  # only those loaded can have raised
        loaded = sys.modules.get(module)
        for name in ("ConnectError", "ConnectTimeout"):
            kind = getattr(loaded, name, None)
            if isinstance(kind, type) and issubclass(kind, BaseException):
                kinds.append(kind)
    connect_failures = tuple(kinds)
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, connect_failures):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _opens(event: Event) -> bool:
    return isinstance(event, CircuitStateChanged) and event.new_state == "open"


def _reported(message: AssistantMessage, label: str) -> ModelError:
    """A failure the model reported in its final message, as an error."""
    text = message.error_message or "the model reported an error"
    if is_context_overflow_message(text):
        return ContextOverflowError(text, provider=message.provider)
    return APIError(f"{label}: {text}", provider=message.provider)


def _all_failed(failures: list[tuple[str, ModelError]]) -> ModelError:
    each = "; ".join(f"{label}: {error.kind}: {error}" for label, error in failures)
    message = f"every model failed ({each})"
    overflows = [e for _, e in failures if isinstance(e, ContextOverflowError)]
    if len(overflows) == len(failures):
        # The loop compacts to fit the largest window, then tries the chain again.
        widest = max(overflows, key=lambda e: e.context_window or 0)
        return ContextOverflowError(
            message,
            requested_tokens=widest.requested_tokens,
            context_window=widest.context_window,
            provider="fallback",
        )
    return AllModelsFailedError(message, failures=failures, provider="fallback")
