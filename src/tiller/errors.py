"""The error hierarchy.

    TillerError
    ├── UsageError            the API was called wrongly (fix the calling code)
    │   ├── AgentBusyError    a second run started while one is going
    │   └── InvalidHistoryError
    ├── ConfigError           bad configuration: unknown model, missing key, bad tool spec
    ├── ToolError             raised by a tool to fail with a message for the model
    └── ModelError            a provider call failed; `kind` says how, `retryable` whether to retry
        ├── ContextOverflowError
        ├── RateLimitError    (`retry_after` seconds, when the provider said)
        ├── OverloadedError   (`retry_after` seconds, when the provider said)
        ├── AuthError
        ├── NetworkError
        ├── APIError
        ├── CircuitOpenError  an endpoint's circuit breaker is open: failing fast (`retry_at`)
        └── AllModelsFailedError  every model of a FallbackModel failed (`failures`)

Messages say what was wrong and what to do next.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from tiller.messages import AssistantMessage


class TillerError(Exception):
    """Base of every error Tiller raises on purpose."""


class UsageError(TillerError, ValueError):
    """The API was used in a way it does not support."""


class AgentBusyError(UsageError):
    """A run was started while another run of the same agent is going."""


class InvalidHistoryError(UsageError):
    """The history cannot be continued from (empty, or it ends with the assistant)."""


class ConfigError(TillerError):
    """Configuration is missing or wrong (unknown model, no API key, bad tool spec)."""


class ToolError(TillerError):
    """Raise from a tool to fail the call with this message for the model."""


class ModelError(TillerError):
    """A model call failed. Subclasses classify the failure."""

    kind: ClassVar[str] = "api"
    retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status_code: int | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.body = body


class ContextOverflowError(ModelError):
    """The request did not fit the context window.

    Providers that know the figures set `requested_tokens` and `context_window`, which
    lets the loop compact to the right size on its one retry.
    """

    kind: ClassVar[str] = "context_overflow"

    def __init__(
        self,
        message: str,
        *,
        requested_tokens: int | None = None,
        context_window: int | None = None,
        **kw: object,
    ) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.requested_tokens = requested_tokens
        self.context_window = context_window


class RateLimitError(ModelError):
    kind: ClassVar[str] = "rate_limited"
    retryable: ClassVar[bool] = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.retry_after = retry_after


class OverloadedError(ModelError):
    kind: ClassVar[str] = "overloaded"
    retryable: ClassVar[bool] = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.retry_after = retry_after


class AuthError(ModelError):
    kind: ClassVar[str] = "auth"


class NetworkError(ModelError):
    kind: ClassVar[str] = "network"
    retryable: ClassVar[bool] = True


class APIError(ModelError):
    kind: ClassVar[str] = "api"


class CircuitOpenError(ModelError):
    """The endpoint failed too often in a row, so calls to it fail fast for a while.

    Not retried: waiting is what the breaker does. `retry_at` (Unix time, seconds) is
    when a trial call will be let through; None while trial calls are already under way.
    """

    kind: ClassVar[str] = "circuit_open"

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        retry_at: float | None = None,
        **kw: object,
    ) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.endpoint = endpoint
        self.retry_at = retry_at


class AllModelsFailedError(ModelError):
    """Every model of a `FallbackModel` failed; `failures` pairs each model with its error."""

    kind: ClassVar[str] = "all_models_failed"

    def __init__(
        self, message: str, *, failures: list[tuple[str, ModelError]], **kw: object
    ) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.failures = failures


# Phrases providers use when a request is longer than the model's context window.
_OVERFLOW_PATTERNS = re.compile(
    "|".join(
        [
            r"prompt is too long",  # Anthropic
            r"input is too long",  # Bedrock
            r"exceeds? the context window",  # OpenAI
            r"context[_ ]length[_ ]exceeded",  # OpenAI code; generic
            r"exceeds the maximum",  # Gemini ("... exceeds the maximum number of tokens")
            r"maximum prompt length",  # xAI
            r"reduce the length of the messages",  # Groq
            r"maximum context length",  # OpenRouter, vLLM
            r"exceeds the available context size",  # llama.cpp server
            r"greater than the context length",  # LM Studio
            r"context window (is )?exceeded",
            r"model_context_window_exceeded",
            r"too many tokens",
            r"token limit exceeded",
        ]
    ),
    re.IGNORECASE,
)


def is_context_overflow_message(text: str) -> bool:
    """True when a provider's error text says the request did not fit the context window."""
    return bool(_OVERFLOW_PATTERNS.search(text))


def detect_context_overflow(value: BaseException | AssistantMessage) -> bool:
    """Did this failure say the request did not fit the context window?

    True for a `ContextOverflowError` (classified from an HTTP error), and for an
    assistant message that ended with stop reason `error` and an overflow phrase
    (providers that report overflow inside the stream).
    """
    if isinstance(value, ContextOverflowError):
        return True
    if isinstance(value, BaseException):
        return False
    return (
        value.stop_reason == "error"
        and bool(value.error_message)
        and is_context_overflow_message(value.error_message or "")
    )
