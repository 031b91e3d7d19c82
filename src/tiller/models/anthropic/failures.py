"""Exceptions of the `anthropic` SDK (and of `httpx2` under it) as Tiller's `ModelError`s.

    APIStatusError (4xx/5xx)          -> classify_http_failure (overflow figures parsed)
    APIConnectionError / APITimeout   -> NetworkError
    httpx2.TransportError mid-stream  -> NetworkError (the SDK lets a cut connection,
                                         `RemoteProtocolError`, through unwrapped)

Only called with an exception in hand, so the SDK is already imported.
"""

from __future__ import annotations

import json
import re

from tiller.errors import ContextOverflowError, ModelError, NetworkError
from tiller.models.http_failures import classify_http_failure

PROVIDER = "anthropic"

# "prompt is too long: 208954 tokens > 200000 maximum"
_OVERFLOW_FIGURES = re.compile(r"(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)")


def model_error(exc: BaseException) -> ModelError | None:
    """The ModelError for an SDK or transport failure; None for anything else."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc)
    if isinstance(exc, anthropic.APITimeoutError):
        return NetworkError(f"{PROVIDER}: the request timed out ({exc.message})", provider=PROVIDER)
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__ or exc
        return NetworkError(
            f"{PROVIDER}: could not reach the API ({type(cause).__name__}: {cause}); "
            "check the network and the base URL",
            provider=PROVIDER,
        )
    if isinstance(exc, httpx2.TransportError):
        return NetworkError(
            f"{PROVIDER}: the connection failed mid-response ({type(exc).__name__}: {exc})",
            provider=PROVIDER,
        )
    return None


def _status_error(exc: BaseException) -> ModelError:
    import anthropic

    assert isinstance(exc, anthropic.APIStatusError)
    body = exc.body
    text = body if isinstance(body, str) else json.dumps(body) if body is not None else ""
    error = classify_http_failure(
        exc.status_code,
        text,
        provider=PROVIDER,
        headers=dict(exc.response.headers),
        message=exc.api_message,
    )
    if isinstance(error, ContextOverflowError):
        _take_overflow_figures(error, exc.api_message or text)
    return error


def _take_overflow_figures(error: ContextOverflowError, text: str) -> None:
    """Tokens asked for and the window, from Anthropic's message, so compaction aims right."""
    found = _OVERFLOW_FIGURES.search(text)
    if found:
        error.requested_tokens = int(found.group(1).replace(",", ""))
        error.context_window = int(found.group(2).replace(",", ""))
