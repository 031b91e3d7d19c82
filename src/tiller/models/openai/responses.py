"""`OpenAIResponsesModel`: OpenAI's Responses API, streamed (prefix `openai-responses`).

    model = OpenAIResponsesModel("gpt-5")     # OPENAI_API_KEY, https://api.openai.com/v1

The stream is a sequence of typed events; only `response.completed`,
`response.incomplete` and `response.failed` end it. A body that stops before
one of them is an incomplete answer: a retryable `NetworkError`.

Reasoning items become thinking blocks whose signature keeps the item (id,
summary, encrypted content) so the next request sends it back unchanged.
Function calls become tool calls keyed by their `call_id`, which the tool
result's `function_call_output` answers. `incomplete` (max_output_tokens) is
stop reason `length`; a refusal part is `refusal`.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

from tiller.errors import APIError, ModelError
from tiller.events import Delta, TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import AssistantMessage, StopReason, Usage
from tiller.models.assembly import MessageAssembler
from tiller.models.base import ModelRequest, StreamItem
from tiller.models.guard import ensure_network_allowed
from tiller.models.http_failures import classify_stream_error, stream_cut
from tiller.models.openai.client import classify_failure, error_fields
from tiller.models.openai.presets import connect, preset
from tiller.models.openai.responses_request import reasoning_signature, responses_params
from tiller.models.openai.sse import sse_events
from tiller.models.pricing import priced

PROVIDER = "openai-responses"
# Model families that reason (and accept `reasoning` / encrypted reasoning content).
_REASONING_MODELS = re.compile(r"^(?:[\w-]+/)?(?:o\d|gpt-5|codex)", re.IGNORECASE)


class OpenAIResponsesModel:
    """A model on OpenAI's Responses API.

    `reasoning` asks for reasoning summaries and encrypted reasoning items; by
    default it is on for reasoning model families (o-series, gpt-5, codex).
    """

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,
        headers: Mapping[str, str] | None = None,
        reasoning: bool | None = None,
    ) -> None:
        self._name = name
        self.connection = connect(
            preset("openai"),
            provider=PROVIDER,
            base_url=base_url,
            api_key=api_key,
            timeout_s=timeout_s,
            headers=headers,
        )
        self.reasoning = bool(_REASONING_MODELS.match(name)) if reasoning is None else reasoning

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return PROVIDER

    @property
    def endpoint(self) -> str:
        return self.connection.base_url

    def __repr__(self) -> str:
        return f"OpenAIResponsesModel({self._name} at {self.endpoint})"

    async def aclose(self) -> None:
        """Close the HTTP connections this model holds on the running event loop."""
        await self.connection.aclose()

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        ensure_network_allowed(PROVIDER)
        params = responses_params(self._name, request, reasoning=self.reasoning)
        reader = ResponsesStreamReader(self._name)
        responses = (await self.connection.client()).responses
        try:
            async with responses.with_streaming_response.create(**params) as response:
                async for event, data in sse_events(response.http_response.aiter_bytes()):
                    for delta in reader.read(event, data):
                        yield delta
        except ModelError:
            raise
        except Exception as exc:
            error = classify_failure(exc, self.connection)
            if error is None:
                raise
            if reader.terminal is None:
                raise error from exc
            # Lost after the terminal event: the answer is whole.
        yield reader.finish()


class ResponsesStreamReader:
    """Turns Responses API events into deltas, then into the finished message."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.terminal: str | None = None  # "completed" or "incomplete"
        self.incomplete_reason: str | None = None
        self.refused = False
        self.usage: Mapping[str, Any] | None = None
        self._assembler = MessageAssembler()
        self._blocks: dict[int, int] = {}  # output_index -> block index
        self._streamed: set[int] = set()  # blocks that received deltas
        self._summary_index: dict[int, int] = {}  # thinking block -> last summary part
        self._calls = 0

    def read(self, event: str, data: str) -> list[Delta]:
        try:
            payload = json.loads(data)
        except ValueError:
            raise APIError(
                f"{PROVIDER}: the server sent an event that is not JSON: {data[:200]!r}",
                provider=PROVIDER,
            ) from None
        if not isinstance(payload, dict):
            return []
        kind = payload.get("type") or event
        deltas: list[Delta] = []
        if kind == "response.output_text.delta":
            self._text(payload, deltas)
        elif kind == "response.refusal.delta":
            self.refused = True
            self._text(payload, deltas)
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self._thinking(payload, deltas)
        elif kind == "response.function_call_arguments.delta":
            block = self._block(payload)
            self._streamed.add(block)
            deltas.append(ToolCallDelta(block, payload.get("delta") or ""))
        elif kind == "response.output_item.added":
            self._item_added(payload, deltas)
        elif kind == "response.output_item.done":
            self._item_done(payload, deltas)
        elif kind in ("response.completed", "response.incomplete"):
            response = payload.get("response") or {}
            self.terminal = kind.removeprefix("response.")
            self.usage = response.get("usage")
            details = response.get("incomplete_details") or {}
            self.incomplete_reason = details.get("reason")
        elif kind == "response.failed":
            response = payload.get("response") or {}
            message, code = error_fields(response.get("error") or {})
            raise classify_stream_error(
                code or "server_error",
                message or "the response failed",
                provider=PROVIDER,
                body=data,
            )
        elif kind == "error":
            message, code = error_fields(payload)
            raise classify_stream_error(code or "error", message, provider=PROVIDER, body=data)
        for delta in deltas:
            self._assembler.add(delta)
        return deltas

    def _block(self, payload: Mapping[str, Any]) -> int:
        key = int(payload.get("output_index") or 0)
        block = self._blocks.get(key)
        if block is None:
            block = self._blocks[key] = len(self._blocks)
        return block

    def _text(self, payload: Mapping[str, Any], deltas: list[Delta]) -> None:
        block = self._block(payload)
        self._streamed.add(block)
        deltas.append(TextDelta(block, payload.get("delta") or ""))

    def _thinking(self, payload: Mapping[str, Any], deltas: list[Delta]) -> None:
        block = self._block(payload)
        part = int(payload.get("summary_index") or payload.get("content_index") or 0)
        previous = self._summary_index.get(block)
        text = payload.get("delta") or ""
        if previous is not None and part != previous:
            text = "\n\n" + text  # a new summary part starts a new paragraph
        self._summary_index[block] = part
        self._streamed.add(block)
        deltas.append(ThinkingDelta(block, text))

    def _item_added(self, payload: Mapping[str, Any], deltas: list[Delta]) -> None:
        item = payload.get("item") or {}
        if item.get("type") == "function_call":
            self._calls += 1
            deltas.append(
                ToolCallDelta(
                    self._block(payload),
                    "",
                    id=item.get("call_id") or item.get("id") or "",
                    name=item.get("name") or "",
                )
            )

    def _item_done(self, payload: Mapping[str, Any], deltas: list[Delta]) -> None:
        item = payload.get("item") or {}
        kind = item.get("type")
        new = int(payload.get("output_index") or 0) not in self._blocks
        block = self._block(payload)
        if kind == "reasoning":
            summary = item.get("summary") or []
            text = (
                "" if block in self._streamed else "\n\n".join(s.get("text", "") for s in summary)
            )
            deltas.append(ThinkingDelta(block, text, signature=reasoning_signature(item)))
        elif kind == "function_call":
            if new:
                self._calls += 1
            if new or block not in self._streamed:
                # No argument deltas came (some servers send only the finished item).
                deltas.append(
                    ToolCallDelta(
                        block,
                        item.get("arguments") or "",
                        id=item.get("call_id") or item.get("id") or "",
                        name=item.get("name") or "",
                    )
                )
        elif kind == "message" and block not in self._streamed:
            for part in item.get("content") or []:
                if part.get("type") == "refusal":
                    self.refused = True
                    deltas.append(TextDelta(block, part.get("refusal") or ""))
                elif part.get("type") == "output_text":
                    deltas.append(TextDelta(block, part.get("text") or ""))

    def finish(self) -> AssistantMessage:
        if self.terminal is None:
            raise stream_cut(PROVIDER, "response.completed")
        stop: StopReason
        if self.terminal == "incomplete":
            stop = "refusal" if self.incomplete_reason == "content_filter" else "length"
        elif self.refused:
            stop = "refusal"
        elif self._calls:
            stop = "tool_use"
        else:
            stop = "stop"
        return self._assembler.finish(
            stop, usage=self._usage(), model=self.model, provider=PROVIDER
        )

    def _usage(self) -> Usage:
        raw = self.usage
        if not raw:
            return Usage()
        # input_tokens counts every input token; its details say how many were read
        # from the prompt cache and (optional field) how many were written to it.
        details = raw.get("input_tokens_details") or {}
        cached = int(details.get("cached_tokens") or 0)
        written = int(details.get("cache_write_tokens") or 0)
        usage = Usage(
            input_tokens=max(0, int(raw.get("input_tokens") or 0) - cached - written),
            output_tokens=int(raw.get("output_tokens") or 0),
            cache_read_tokens=cached,
            cache_write_tokens=written,
        )
        return priced(PROVIDER, self.model, usage)
