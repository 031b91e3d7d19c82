"""HTTP failures from any provider, classified into Tiller's error hierarchy.

One place decides what a status code and body mean, so every provider retries,
compacts and gives up alike (the classification every provider shares):

    400/413 with an overflow phrase, or with an empty body   -> ContextOverflowError
    429                                                       -> RateLimitError (retry-after)
    503, 529                                                  -> OverloadedError (retry-after)
    401, 403                                                  -> AuthError
    408, 5xx other than those                                 -> NetworkError-like: retried
    anything else                                             -> APIError
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

from tiller.errors import (
    APIError,
    AuthError,
    ContextOverflowError,
    ModelError,
    NetworkError,
    OverloadedError,
    RateLimitError,
    is_context_overflow_message,
)

_OVERLOADED = frozenset({503, 529})
_AUTH = frozenset({401, 403})


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a `retry-after` header: delta-seconds or an HTTP date.

    None when absent or unreadable; never negative.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_after_from(headers: Mapping[str, str] | None) -> float | None:
    """`retry-after-ms` (OpenAI) or `retry-after` (RFC 9110), whichever is present."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(lowered.get("retry-after"))


def classify_http_failure(
    status: int,
    body: str | None,
    *,
    provider: str,
    headers: Mapping[str, str] | None = None,
    message: str | None = None,
) -> ModelError:
    """The ModelError for an HTTP error response.

    `message` is the provider's own error text when the caller already parsed the
    body; otherwise the body is used as the text.
    """
    text = (message or body or "").strip()
    detail = text or f"HTTP {status} with an empty body"
    if status in (400, 413) and (not (body or "").strip() or is_context_overflow_message(text)):
        return ContextOverflowError(
            f"{provider}: the request is longer than the model's context window ({detail})",
            provider=provider,
            status_code=status,
            body=body,
        )
    if is_context_overflow_message(text):
        return ContextOverflowError(
            f"{provider}: {detail}", provider=provider, status_code=status, body=body
        )
    if status == 429:
        return RateLimitError(
            f"{provider}: rate limited ({detail})",
            retry_after=retry_after_from(headers),
            provider=provider,
            status_code=status,
            body=body,
        )
    if status in _OVERLOADED:
        return OverloadedError(
            f"{provider}: overloaded, try again later ({detail})",
            retry_after=retry_after_from(headers),
            provider=provider,
            status_code=status,
            body=body,
        )
    if status in _AUTH:
        return AuthError(
            f"{provider}: the API key was refused (HTTP {status}: {detail}); "
            "check the key and that it may use this model",
            provider=provider,
            status_code=status,
            body=body,
        )
    if status == 408 or status >= 500:
        return NetworkError(
            f"{provider}: server error HTTP {status} ({detail})",
            provider=provider,
            status_code=status,
            body=body,
        )
    return APIError(
        f"{provider}: HTTP {status}: {detail}", provider=provider, status_code=status, body=body
    )


def classify_stream_error(
    error_type: str, message: str, *, provider: str, body: str | None = None
) -> ModelError:
    """An error event inside a stream (e.g. Anthropic `overloaded_error`), like its HTTP twin."""
    kind = error_type.lower()
    text = f"{provider}: {message or error_type}"
    cls: type[ModelError] = APIError
    if is_context_overflow_message(message) or ("context" in kind and "exceed" in kind):
        cls = ContextOverflowError
    elif "overloaded" in kind:
        cls = OverloadedError
    elif "rate_limit" in kind:
        cls = RateLimitError
    elif "authentication" in kind or "permission" in kind:
        cls = AuthError
    elif "api_error" in kind or "server_error" in kind or "timeout" in kind:
        cls = NetworkError
    return cls(text, provider=provider, body=body)


def stream_cut(provider: str, terminator: str) -> NetworkError:
    """A stream that ended before its protocol's terminator: retried like a dropped connection."""
    return NetworkError(
        f"{provider}: the stream ended before {terminator}; the response is incomplete",
        provider=provider,
    )
