"""`OpenAIChatModel`: the Chat Completions protocol, streamed, on the official SDK.

    model = OpenAIChatModel("gpt-4.1")                        # OpenAI, OPENAI_API_KEY
    model = OpenAIChatModel("qwen3", provider="ollama")       # any preset in `presets`
    model = OpenAIChatModel("m", base_url="http://host:8000/v1", api_key="...")

The SDK sends the request and raises HTTP errors; the SSE body is read here,
chunk by chunk, so that a stream which stops before its end is noticed (the
SDK's iterator ends quietly either way). A stream is complete after `data:
[DONE]` or after a `finish_reason`: some compatible servers never send `[DONE]`,
and the usage chunk that OpenAI sends after the finish reason is optional.
Without either, the answer is incomplete and the failure is a retryable
`NetworkError`.

Stop reasons: `stop` → stop, `length` → length, `tool_calls` →
tool_use, `content_filter` or a `refusal` → refusal.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

from tiller.errors import APIError, ModelError
from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import AssistantMessage, StopReason, Usage
from tiller.models.assembly import MessageAssembler
from tiller.models.base import ModelRequest, StreamItem
from tiller.models.guard import ensure_network_allowed
from tiller.models.http_failures import classify_stream_error, stream_cut
from tiller.models.openai.chat_request import chat_params
from tiller.models.openai.client import classify_failure, error_fields
from tiller.models.openai.presets import connect, preset
from tiller.models.openai.sse import sse_events
from tiller.models.pricing import priced

_FINISH: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


class OpenAIChatModel:
    """A model on the Chat Completions protocol (OpenAI or any compatible server).

    `provider` names a preset (`openai`, `ollama`, `groq`, ...: see `presets.PRESETS`)
    that gives the default base URL, key variable and protocol quirks; the other
    options override them. `reasoning_replay=""` stops sending reasoning back.
    """

    def __init__(
        self,
        name: str,
        *,
        provider: str = "openai",
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,
        headers: Mapping[str, str] | None = None,
        stream_usage: bool | None = None,
        max_tokens_field: str | None = None,
        reasoning_replay: str | None = None,
    ) -> None:
        defaults = preset(provider)
        self._name = name
        self.connection = connect(
            defaults, base_url=base_url, api_key=api_key, timeout_s=timeout_s, headers=headers
        )
        self.stream_usage = defaults.stream_usage if stream_usage is None else stream_usage
        self.max_tokens_field = max_tokens_field or defaults.max_tokens_field
        replay = defaults.reasoning_replay if reasoning_replay is None else reasoning_replay
        self.reasoning_replay = replay or None

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return self.connection.provider

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (circuit breakers key on provider + endpoint)."""
        return self.connection.base_url

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.provider}:{self._name} at {self.endpoint})"

    async def aclose(self) -> None:
        """Close the HTTP connections this model holds on the running event loop."""
        await self.connection.aclose()

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        ensure_network_allowed(self.provider)
        params = chat_params(
            self._name,
            request,
            max_tokens_field=self.max_tokens_field,
            stream_usage=self.stream_usage,
            reasoning_replay=self.reasoning_replay,
        )
        reader = ChatStreamReader(self.provider, self._name)
        completions = (await self.connection.client()).chat.completions
        try:
            async with completions.with_streaming_response.create(**params) as response:
                async for _, data in sse_events(response.http_response.aiter_bytes()):
                    for delta in reader.read(data):
                        yield delta
        except ModelError:
            raise
        except Exception as exc:
            error = classify_failure(exc, self.connection)
            if error is None:
                raise
            if reader.finish_reason is None or error.status_code is not None:
                raise error from exc
            # The connection dropped after the answer was complete (only the usage
            # chunk or `[DONE]` was lost): keep the answer rather than pay for it twice.
        yield reader.finish()


class ChatStreamReader:
    """Turns `chat.completion.chunk` data into deltas, then into the finished message."""

    __slots__ = (
        "_assembler",
        "_calls",
        "_next_block",
        "_text_block",
        "_thinking_block",
        "done",
        "finish_reason",
        "model",
        "provider",
        "refused",
        "usage",
    )

    def __init__(self, provider: str, model: str) -> None:
        self.provider = provider
        self.model = model
        self.done = False
        self.finish_reason: str | None = None
        self.refused = False
        self.usage: Mapping[str, Any] | None = None
        self._assembler = MessageAssembler()
        self._next_block = 0
        self._text_block = -1
        self._thinking_block = -1
        self._calls: dict[int, int] = {}  # the wire's tool-call index -> block index

    def read(self, data: str) -> list[Delta]:
        """The deltas in one SSE `data` payload (none for `[DONE]` or a usage chunk)."""
        if data == "[DONE]":
            self.done = True
            return []
        if self.done:
            return []
        try:
            chunk = json.loads(data)
        except ValueError:
            raise APIError(
                f"{self.provider}: the server sent a chunk that is not JSON: {data[:200]!r}",
                provider=self.provider,
            ) from None
        if not isinstance(chunk, dict):
            return []
        if chunk.get("error"):
            message, code = error_fields(chunk)
            raise classify_stream_error(code or "error", message, provider=self.provider, body=data)
        usage = chunk.get("usage")
        if usage:
            self.usage = usage
        deltas: list[Delta] = []
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) == 0:
                self._read_choice(choice, deltas)
        for delta in deltas:
            self._assembler.add(delta)
        return deltas

    def _block(self) -> int:
        self._next_block += 1
        return self._next_block - 1

    def _read_choice(self, choice: Mapping[str, Any], deltas: list[Delta]) -> None:
        delta = choice.get("delta") or {}
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            if self._thinking_block < 0:
                self._thinking_block = self._block()
            deltas.append(ThinkingDelta(self._thinking_block, reasoning))
        content = delta.get("content")
        if content:
            if self._text_block < 0:
                self._text_block = self._block()
            deltas.append(TextDelta(self._text_block, content))
        refusal = delta.get("refusal")
        if refusal:
            self.refused = True
            if self._text_block < 0:
                self._text_block = self._block()
            deltas.append(TextDelta(self._text_block, refusal))
        calls = delta.get("tool_calls")
        if calls:
            for position, call in enumerate(calls):
                self._read_call(call, position, deltas)
        finish = choice.get("finish_reason")
        if finish:
            if finish == "error":
                raise classify_stream_error(
                    "server_error",
                    "the server ended the answer with an error",
                    provider=self.provider,
                )
            self.finish_reason = finish

    def _read_call(self, call: Mapping[str, Any], position: int, deltas: list[Delta]) -> None:
        key = call.get("index", position)
        function = call.get("function") or {}
        arguments = function.get("arguments") or ""
        block = self._calls.get(key)
        if block is None:
            block = self._calls[key] = self._block()
            # Some servers send no id; the tool result still needs one to answer.
            id = call.get("id") or f"call_{uuid.uuid4().hex[:24]}"
            deltas.append(ToolCallDelta(block, arguments, id=id, name=function.get("name") or ""))
        elif arguments or call.get("id") or function.get("name"):
            deltas.append(
                ToolCallDelta(block, arguments, id=call.get("id"), name=function.get("name"))
            )

    def finish(self) -> AssistantMessage:
        if not self.done and self.finish_reason is None:
            raise stream_cut(self.provider, "data: [DONE] or a finish_reason")
        stop = _FINISH.get(self.finish_reason or "stop", "stop")
        if self.refused:
            stop = "refusal"
        elif self._calls and stop == "stop":
            stop = "tool_use"
        return self._assembler.finish(
            stop, usage=self._usage(), model=self.model, provider=self.provider
        )

    def _usage(self) -> Usage:
        raw = self.usage
        if not raw:
            return Usage()  # the server reported none: cost unknown, not 0
        prompt = int(raw.get("prompt_tokens") or 0)
        details = raw.get("prompt_tokens_details") or {}
        # OpenAI: prompt_tokens_details.cached_tokens; DeepSeek: prompt_cache_hit_tokens.
        cached = int(details.get("cached_tokens") or raw.get("prompt_cache_hit_tokens") or 0)
        # Optional: the part of prompt_tokens written to the prompt cache.
        written = int(details.get("cache_write_tokens") or 0)
        usage = Usage(
            input_tokens=max(0, prompt - cached - written),
            output_tokens=int(raw.get("completion_tokens") or 0),
            cache_read_tokens=cached,
            cache_write_tokens=written,
        )
        return priced(self.provider, self.model, usage)
