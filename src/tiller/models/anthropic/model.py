"""`AnthropicModel`: Claude through the Messages API, streamed.

The official SDK makes the request (auth headers, API version, connection
handling) with its own retries off, so every attempt is Tiller's and shows as a
`retry` event. The response is read as raw server-sent events and turned into
deltas here: no second accumulation in the SDK, and no reliance on the SDK
noticing a stream that ends early (it does not; see `ResponseReader`).

A turn the API pauses (`pause_turn`, during long server-tool work) is continued
here, as Anthropic's docs say: the paused content goes back as the assistant
turn, and the model answers on. The caller sees one message.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
import os
import sys
import weakref
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal

from tiller.errors import ConfigError, ModelError, NetworkError
from tiller.messages import AssistantMessage, Content, StopReason, Usage
from tiller.models.anthropic.failures import model_error
from tiller.models.anthropic.request import Params, build_params
from tiller.models.anthropic.stream import PROVIDER, STOP_REASONS, ResponseReader
from tiller.models.base import ModelRequest, StreamItem
from tiller.models.guard import ensure_network_allowed
from tiller.models.http_failures import stream_cut
from tiller.models.pricing import priced

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 8192
MIN_THINKING_BUDGET = 1024  # the API's floor for `budget_tokens`
MAX_CONTINUATIONS = 8  # paused turns continued before giving up (stop reason `length`)
API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"

Thinking = int | Literal["adaptive"] | None


class AnthropicModel:
    """A Claude model: `AnthropicModel("claude-sonnet-4-5")`.

    `api_key` defaults to `$ANTHROPIC_API_KEY`, `base_url` to `$ANTHROPIC_BASE_URL`
    or Anthropic's API. `thinking` turns on extended thinking: a token budget
    (at least 1024) or `"adaptive"`. `prompt_caching` marks cache breakpoints
    (system prompt, tools, last messages); `timeout` is in seconds.
    """

    def __init__(
        self,
        name: str = "claude-sonnet-4-5",
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        max_tokens: int | None = None,
        prompt_caching: bool = True,
        thinking: Thinking = None,
    ) -> None:
        key = api_key or os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            raise ConfigError(
                f"anthropic: no API key; set {API_KEY_ENV} (or pass api_key=..., "
                "--api-key on the command line)"
            )
        self._name = name
        self._api_key = key
        self._endpoint = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout
        self.prompt_caching = prompt_caching
        self._thinking = _thinking_param(thinking)
        self.max_tokens = _max_tokens(max_tokens, thinking)
        # One SDK client per event loop: its connection pool belongs to the loop it ran on.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncAnthropic] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return PROVIDER

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (circuit breakers are kept per endpoint)."""
        return self._endpoint

    def __repr__(self) -> str:
        return f"AnthropicModel({self._name!r}, base_url={self._endpoint!r})"

    def request_params(self, request: ModelRequest) -> Params:
        """The request body this model sends for `request` (without `stream`)."""
        return build_params(
            request,
            model=self._name,
            max_tokens=self.max_tokens,
            prompt_caching=self.prompt_caching,
            thinking=self._thinking,
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        ensure_network_allowed(PROVIDER)
        return self._stream(self.request_params(request))

    async def _stream(self, params: Params) -> AsyncIterator[StreamItem]:
        client = await self._client()
        from anthropic import AsyncStream

        content: list[Content] = []
        usage = Usage()
        model = self._name
        offset = 0
        reader = ResponseReader()
        for _ in range(MAX_CONTINUATIONS + 1):
            reader = ResponseReader(offset)
            response = await _open(client, params)
            try:
                async for event in AsyncStream.raw_events(response.response):
                    if not event.data:
                        continue
                    delta = reader.feed(_decoded(event.data))
                    if delta is not None:
                        yield delta
            except ModelError:
                raise
            except Exception as exc:
                error = model_error(exc)
                if error is None:
                    raise
                raise error from exc
            finally:
                await response.close()
            if not reader.finished:
                raise stream_cut(PROVIDER, "message_stop")
            content += reader.content()
            usage = usage + reader.usage
            model = reader.model or model
            if reader.stop_reason != "pause_turn":
                break
            params = _continued(params, reader.replay())
            offset += reader.block_count
        yield AssistantMessage(
            content,
            _stop_reason(reader.stop_reason),
            priced(PROVIDER, model, usage),
            model,
            PROVIDER,
            error_message=reader.refusal_note(),
        )

    async def _client(self) -> AsyncAnthropic:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            if "anthropic" not in sys.modules:
                # Importing the SDK takes seconds (its types package); off the event
                # loop, other runs and the UI stay live meanwhile.
                await asyncio.to_thread(importlib.import_module, "anthropic")
                if (client := self._clients.get(loop)) is not None:
                    return client  # a concurrent call made it meanwhile
            from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

            for old in [old for old in self._clients if old.is_closed()]:
                del self._clients[old]  # its connections ended with their loop
            options: dict[str, Any] = {}
            if self.timeout is not None:
                options["timeout"] = self.timeout
            client = AsyncAnthropic(
                api_key=self._api_key,
                base_url=self._endpoint,
                max_retries=0,
                # The SDK's own HTTP client closes itself from `__del__` with a task on
                # whatever loop runs then, which fails once its loop has ended; this one
                # is closed by `aclose()` or collected with its loop.
                http_client=DefaultAsyncHttpxClient(),
                **options,
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the connections this model opened on the running event loop."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()


async def _open(client: AsyncAnthropic, params: Params) -> Any:
    """Send the request; the SDK raises for an error status before any event is read.

    Body fields `messages.create` has no parameter for (SDK 2.x has none for
    `temperature` or `top_p`) travel in `extra_body`.
    """
    known = _create_parameters(type(client.messages).create)
    arguments = {key: value for key, value in params.items() if key in known}
    extra = {key: value for key, value in params.items() if key not in known}
    try:
        return await client.messages.create(stream=True, extra_body=extra or None, **arguments)
    except Exception as exc:
        error = model_error(exc)
        if error is None:
            raise
        raise error from exc


@functools.cache
def _create_parameters(create: Callable[..., Any]) -> frozenset[str]:
    """The body fields the SDK's `messages.create` takes as keyword arguments."""
    names = inspect.signature(create).parameters
    return frozenset(names) - {"self", "stream", "extra_headers", "extra_query", "extra_body"}


def _decoded(data: str) -> dict[str, Any]:
    try:
        event = json.loads(data)
    except ValueError as exc:
        raise NetworkError(
            f"{PROVIDER}: the stream sent an event that is not JSON ({data[:80]!r})",
            provider=PROVIDER,
        ) from exc
    if not isinstance(event, dict):
        raise NetworkError(f"{PROVIDER}: the stream sent a malformed event", provider=PROVIDER)
    return event


def _continued(params: Params, paused: list[dict[str, Any]]) -> Params:
    """`params` with the paused turn's content as the last assistant message."""
    messages = list(params["messages"])
    if messages and messages[-1]["role"] == "assistant":
        last = messages[-1]
        messages[-1] = {"role": "assistant", "content": [*last["content"], *paused]}
    else:
        messages.append({"role": "assistant", "content": paused})
    return {**params, "messages": messages}


def _stop_reason(reason: str | None) -> StopReason:
    if reason == "pause_turn":
        return "length"  # still paused after MAX_CONTINUATIONS: the answer is incomplete
    return STOP_REASONS.get(reason or "end_turn", "stop")


def _thinking_param(thinking: Thinking) -> dict[str, Any] | None:
    if thinking is None:
        return None
    if thinking == "adaptive":
        return {"type": "adaptive"}
    if isinstance(thinking, bool) or not isinstance(thinking, int):
        raise ConfigError(
            f"anthropic: thinking must be a token budget or 'adaptive', not {thinking!r}"
        )
    if thinking < MIN_THINKING_BUDGET:
        raise ConfigError(
            f"anthropic: a thinking budget must be at least {MIN_THINKING_BUDGET} tokens "
            f"(got {thinking})"
        )
    return {"type": "enabled", "budget_tokens": thinking}


def _max_tokens(max_tokens: int | None, thinking: Thinking) -> int:
    budget = thinking if isinstance(thinking, int) and not isinstance(thinking, bool) else 0
    if max_tokens is None:
        return DEFAULT_MAX_TOKENS + budget
    if max_tokens < 1:
        raise ConfigError(f"anthropic: max_tokens must be at least 1 (got {max_tokens})")
    if budget and max_tokens <= budget:
        raise ConfigError(
            f"anthropic: max_tokens ({max_tokens}) must be more than the thinking budget "
            f"({budget}); raise max_tokens or lower thinking"
        )
    return max_tokens
