"""`FallbackModel`: models tried in order until one answers.

    model = FallbackModel(["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", "local:smollm2"])

Every call starts with the first model, and moves to the next when a model fails
before streaming any part of its reply with

- a failure that retrying will not fix (auth, context overflow, a refused request,
  a failure it reported in its final message), or
- an open circuit breaker (`CircuitOpenError`), or a failure that just opened it.

Other retryable failures (network, overloaded, rate limited) go up to the loop,
whose retry policy tries the call again, from the first model: a passing hiccup
should not move a run off its model. When they keep coming, the model's breaker
opens and later calls move on at once.

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
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from tiller.errors import (
    AllModelsFailedError,
    APIError,
    ContextOverflowError,
    ModelError,
    UsageError,
    is_context_overflow_message,
)
from tiller.events import CircuitStateChanged, Event
from tiller.messages import AssistantMessage
from tiller.models.base import Model, ModelRequest, StreamItem
from tiller.models.circuit_breaker import close_stream
from tiller.models.registry import resolve_model


class FallbackModel:
    """The first of `models` that answers; model strings are resolved by the registry."""

    def __init__(self, models: Sequence[Model | str]) -> None:
        if not models:
            raise UsageError("FallbackModel needs at least one model")
        self.models: tuple[Model, ...] = tuple(resolve_model(m) for m in models)
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
        for label, model in zip(self._labels, self.models, strict=True):
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
                if streamed or (error.retryable and not opened):
                    raise
                failures.append((label, error))
            finally:
                await close_stream(stream)
        raise _all_failed(failures)


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
