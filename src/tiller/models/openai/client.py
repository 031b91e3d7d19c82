"""The connection behind every OpenAI-protocol model, and its failures as Tiller errors.

`Connection` holds where a model talks to (base URL, key, timeout, headers) and
builds the official SDK's `AsyncOpenAI` client lazily, one per event loop (an
HTTP connection pool belongs to the loop that opened it). The SDK's own retries
are off: Tiller's retry policy owns retries, so every attempt is an event.

`classify_failure` turns what the SDK or its HTTP layer raised into Tiller's
error hierarchy, through the shared `classify_http_failure`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import ssl
import sys
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tiller.errors import ContextOverflowError, ModelError, NetworkError
from tiller.models.http_failures import classify_http_failure

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# OpenAI-only headers the SDK fills from OPENAI_ORG_ID / OPENAI_PROJECT_ID; other
# providers must not receive them.
_OPENAI_ACCOUNT_HEADERS = ("OpenAI-Organization", "OpenAI-Project")


class Connection:
    """Base URL, API key, timeout and extra headers of one model; the SDK client for them."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        api_key: str,
        timeout_s: float | None = None,
        headers: Mapping[str, str] | None = None,
        openai_account_headers: bool = False,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.headers = dict(headers or {})
        self.openai_account_headers = openai_account_headers
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    async def client(self) -> AsyncOpenAI:
        """The SDK client for the running event loop (made on first use)."""
        if "openai" not in sys.modules:
            # Importing the SDK takes most of a second: do it off the event loop.
            await asyncio.to_thread(importlib.import_module, "openai")
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            for old in [old for old in self._clients if old.is_closed()]:
                del self._clients[old]  # its connections died with their loop
            client = self._clients[loop] = self._make_client()
        return client

    async def aclose(self) -> None:
        """Close the SDK client of the running event loop (its pooled connections)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpx2Client, Omit

        headers: dict[str, Any] = dict(self.headers)
        if not self.openai_account_headers:
            for name in _OPENAI_ACCOUNT_HEADERS:
                headers.setdefault(name, Omit())
        options: dict[str, Any] = {}
        if self.timeout_s is not None:
            options["timeout"] = self.timeout_s
        return AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=0,
            default_headers=headers,
            # The SDK's default HTTP client closes itself from `__del__` by scheduling
            # a task on whatever loop runs at that moment, which fails (and logs) when
            # its own loop has ended; this one is closed by `aclose()` or collected.
            http_client=DefaultAsyncHttpx2Client(),
            **options,
        )


def classify_failure(exc: BaseException, connection: Connection) -> ModelError | None:
    """The Tiller error for what the SDK or the HTTP layer raised; None if it is neither."""
    import anyio
    import httpx2
    import openai

    provider = connection.provider
    if isinstance(exc, openai.APIStatusError):
        return _status_failure(exc, provider)
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return NetworkError(
            f"{provider}: no answer from {connection.base_url} in time; "
            "the request will be retried (raise timeout_s= if the model is slow)",
            provider=provider,
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return NetworkError(
            f"{provider}: could not reach {connection.base_url} ({cause}); "
            "check the base URL and that the server is running",
            provider=provider,
        )
    if isinstance(exc, httpx2.RequestError | ssl.SSLError | anyio.EndOfStream):
        return NetworkError(
            f"{provider}: the connection to {connection.base_url} broke mid-stream ({exc})",
            provider=provider,
        )
    return None


_CONTEXT_WINDOW = re.compile(r"maximum context length is (\d+) tokens", re.IGNORECASE)
_REQUESTED = re.compile(r"(?:resulted in|requested|you have) (\d+) tokens", re.IGNORECASE)


def _status_failure(exc: Any, provider: str) -> ModelError:
    response = exc.response
    message, code = error_fields(exc.body)
    if code and code not in message:
        message = f"{message} ({code})" if message else code
    error = classify_http_failure(
        exc.status_code,
        _body_text(response),
        provider=provider,
        headers=response.headers,
        message=message or None,
    )
    if isinstance(error, ContextOverflowError):
        window = _CONTEXT_WINDOW.search(message)
        asked = _REQUESTED.search(message)
        error.context_window = int(window.group(1)) if window else None
        error.requested_tokens = int(asked.group(1)) if asked else None
    return error


def _body_text(response: Any) -> str:
    try:
        return str(response.text)
    except Exception:  # the body was never read (closed early): classify by status alone
        return ""


def error_fields(body: object) -> tuple[str, str | None]:
    """(message, code) from an OpenAI-style error object, its wrapper, or raw text."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            body = inner
        else:
            return str(inner), None
        raw = body.get("message")
        message = raw if isinstance(raw, str) else json.dumps(raw) if raw is not None else ""
        code = body.get("code") or body.get("type")
        return message, str(code) if code is not None else None
    if body is None:
        return "", None
    return str(body), None
