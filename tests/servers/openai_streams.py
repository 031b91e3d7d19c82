"""OpenAI wire shapes for the fake server: Chat Completions chunks and Responses events.

`ChatStream` and `ResponsesStream` build an answer piece by piece, in the shapes
of OpenAI's API reference (`chat.completion.chunk` objects ending with `data:
[DONE]`; the Responses API's typed events from `response.created` to
`response.completed`), and give it as a `Stream` to serve, along with the whole
object a non-streaming request gets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

CREATED = 1_750_000_000


@dataclass(slots=True)
class Reply:
    """A plain HTTP response: `body` is sent as JSON (a dict), or as is (str/bytes)."""

    status: int
    body: dict[str, Any] | str | bytes = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Stream:
    """An SSE body written piece by piece.

    `delay_s` is slept before each piece. `cut` drops the connection after the last
    piece without ending the chunked body (a connection lost mid-stream).
    `final` is the whole object a non-streaming request gets instead.
    """

    pieces: list[bytes]
    delay_s: float = 0.0
    cut: bool = False
    final: dict[str, Any] | None = None

    def split_inside_characters(self, delay_s: float = 0.002) -> Stream:
        """The same bytes, with a write boundary inside every multi-byte UTF-8 character."""
        pieces: list[bytes] = []
        for piece in self.pieces:
            start = 0
            for i in range(1, len(piece)):
                # A continuation byte right after a lead byte: cut between the two.
                if piece[i] & 0xC0 == 0x80 and piece[i - 1] & 0xC0 == 0xC0:
                    pieces.append(piece[start:i])
                    start = i
            pieces.append(piece[start:])
        return Stream(pieces, delay_s=delay_s, cut=self.cut, final=self.final)


def sse_data(obj: dict[str, Any] | str) -> bytes:
    data = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


def sse_event(kind: str, obj: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def error_body(
    message: str, type: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error object, as an HTTP error body carries it."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


# ── Chat Completions ────────────────────────────────────────────────────────


class ChatStream:
    """Builds a Chat Completions stream: chunks in order, then `[DONE]`.

    Each call appends one `chat.completion.chunk` (or several for `text`).
    """

    def __init__(self, model: str = "gpt-4.1", id: str = "chatcmpl-1") -> None:
        self.model = model
        self.id = id
        self.chunks: list[dict[str, Any]] = []
        self.role()

    def _chunk(
        self,
        delta: dict[str, Any] | None,
        finish_reason: str | None = None,
        usage: dict[str, Any] | None = None,
    ) -> ChatStream:
        choices = (
            []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]
        )
        self.chunks.append(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": self.model,
                "system_fingerprint": "fp_test",
                "choices": choices,
                "usage": usage,
            }
        )
        return self

    def role(self) -> ChatStream:
        return self._chunk({"role": "assistant", "content": "", "refusal": None})

    def text(self, *pieces: str) -> ChatStream:
        for piece in pieces:
            self._chunk({"content": piece})
        return self

    def reasoning(self, *pieces: str, field: str = "reasoning_content") -> ChatStream:
        for piece in pieces:
            self._chunk({field: piece})
        return self

    def refusal(self, *pieces: str) -> ChatStream:
        for piece in pieces:
            self._chunk({"refusal": piece})
        return self

    def tool_call(self, index: int, id: str, name: str, arguments: str = "") -> ChatStream:
        """The first fragment of a tool call: id, name and (usually empty) arguments."""
        call = {
            "index": index,
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return self._chunk({"tool_calls": [call]})

    def tool_args(self, index: int, *fragments: str) -> ChatStream:
        for fragment in fragments:
            self._chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
        return self

    def finish(self, reason: str) -> ChatStream:
        return self._chunk({}, finish_reason=reason)

    def usage(
        self,
        prompt: int,
        completion: int,
        cached: int = 0,
        reasoning: int = 0,
        cache_write: int | None = None,
    ) -> ChatStream:
        """The last chunk `stream_options.include_usage` asks for: no choices, the usage.

        `cache_write` adds the optional `prompt_tokens_details.cache_write_tokens`."""
        details: dict[str, int] = {"cached_tokens": cached, "audio_tokens": 0}
        if cache_write is not None:
            details["cache_write_tokens"] = cache_write
        return self._chunk(
            None,
            usage={
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": details,
                "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0},
            },
        )

    def error(self, message: str, type: str, code: str | None = None) -> ChatStream:
        """An error object in the stream, as OpenAI sends when a stream fails part-way."""
        self.chunks.append(error_body(message, type, code))
        return self

    def stream(self, *, done: bool = True, cut: bool = False, delay_s: float = 0.0) -> Stream:
        pieces = [sse_data(chunk) for chunk in self.chunks]
        if done:
            pieces.append(sse_data("[DONE]"))
        return Stream(pieces, delay_s=delay_s, cut=cut, final=self.completion())

    def completion(self) -> dict[str, Any]:
        """The non-streaming `chat.completion` these chunks add up to."""
        content: list[str] = []
        refusal: list[str] = []
        reasoning: dict[str, list[str]] = {}
        calls: dict[int, dict[str, Any]] = {}
        finish: str | None = None
        usage: dict[str, Any] | None = None
        for chunk in self.chunks:
            if "error" in chunk:
                continue
            usage = chunk.get("usage") or usage
            for choice in chunk["choices"]:
                delta = choice["delta"]
                finish = choice["finish_reason"] or finish
                content.append(delta.get("content") or "")
                refusal.append(delta.get("refusal") or "")
                for name in ("reasoning_content", "reasoning"):
                    if delta.get(name):
                        reasoning.setdefault(name, []).append(delta[name])
                for tc in delta.get("tool_calls") or []:
                    call = calls.setdefault(
                        tc.get("index", 0),
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    call["id"] = tc.get("id") or call["id"]
                    fn = tc.get("function") or {}
                    call["function"]["name"] += fn.get("name") or ""
                    call["function"]["arguments"] += fn.get("arguments") or ""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(content) or None,
            "refusal": "".join(refusal) or None,
        }
        for name, parts in reasoning.items():
            message[name] = "".join(parts)
        if calls:
            message["tool_calls"] = [calls[i] for i in sorted(calls)]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": CREATED,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": usage,
        }


def chat_text(text: str, *, pieces: int = 1, prompt: int = 5, completion: int = 3) -> Stream:
    """A complete streamed text answer split into `pieces` deltas."""
    size = max(1, -(-len(text) // pieces))
    parts = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    return ChatStream().text(*parts).finish("stop").usage(prompt, completion).stream()


# ── Responses ───────────────────────────────────────────────────────────────


class ResponsesStream:
    """Builds a Responses API event stream, with sequence numbers and output indexes."""

    def __init__(self, model: str = "gpt-5", id: str = "resp_1") -> None:
        self.model = model
        self.id = id
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.output: list[dict[str, Any]] = []
        self._emit("response.created", response=self._response("in_progress"))
        self._emit("response.in_progress", response=self._response("in_progress"))

    def _response(self, status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "model": self.model,
            "output": list(self.output) if status != "in_progress" else [],
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": None,
            **extra,
        }

    def _emit(self, kind: str, **data: Any) -> None:
        self.events.append((kind, {"type": kind, "sequence_number": len(self.events), **data}))

    def message(self, *pieces: str, id: str = "msg_1", refusal: bool = False) -> ResponsesStream:
        """An assistant message item whose text (or refusal) arrives in `pieces`."""
        index = len(self.output)
        part_type, key = ("refusal", "refusal") if refusal else ("output_text", "text")
        empty_part: dict[str, Any] = {"type": part_type, key: ""}
        if not refusal:
            empty_part["annotations"] = []
        item: dict[str, Any] = {
            "id": id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        self._emit("response.output_item.added", output_index=index, item=dict(item))
        where = {"item_id": id, "output_index": index, "content_index": 0}
        self._emit("response.content_part.added", **where, part=empty_part)
        delta_kind = "response.refusal.delta" if refusal else "response.output_text.delta"
        for piece in pieces:
            extra: dict[str, Any] = {} if refusal else {"logprobs": []}
            self._emit(delta_kind, **where, delta=piece, **extra)
        full = "".join(pieces)
        if refusal:
            self._emit("response.refusal.done", **where, refusal=full)
        else:
            self._emit("response.output_text.done", **where, text=full, logprobs=[])
        part = {**empty_part, key: full}
        self._emit("response.content_part.done", **where, part=part)
        done = {**item, "status": "completed", "content": [part]}
        self._emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)
        return self

    def reasoning(
        self, *summaries: list[str], id: str = "rs_1", encrypted: str | None = "gAAAAenc"
    ) -> ResponsesStream:
        """A reasoning item: a summary part per list of delta pieces, then its encrypted content."""
        index = len(self.output)
        item: dict[str, Any] = {"id": id, "type": "reasoning", "summary": []}
        self._emit("response.output_item.added", output_index=index, item=dict(item))
        texts: list[dict[str, Any]] = []
        for summary_index, pieces in enumerate(summaries):
            where = {"item_id": id, "output_index": index, "summary_index": summary_index}
            empty = {"type": "summary_text", "text": ""}
            self._emit("response.reasoning_summary_part.added", **where, part=empty)
            for piece in pieces:
                self._emit("response.reasoning_summary_text.delta", **where, delta=piece)
            full = "".join(pieces)
            self._emit("response.reasoning_summary_text.done", **where, text=full)
            part = {"type": "summary_text", "text": full}
            self._emit("response.reasoning_summary_part.done", **where, part=part)
            texts.append(part)
        done = {**item, "summary": texts, "encrypted_content": encrypted}
        self._emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)
        return self

    def function_call(
        self, call_id: str, name: str, *fragments: str, id: str | None = None
    ) -> ResponsesStream:
        index = len(self.output)
        item_id = id or f"fc_{call_id}"
        item: dict[str, Any] = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "call_id": call_id,
            "name": name,
            "arguments": "",
        }
        self._emit("response.output_item.added", output_index=index, item=dict(item))
        for fragment in fragments:
            self._emit(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=fragment,
            )
        arguments = "".join(fragments)
        self._emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=arguments,
            name=name,
        )
        done = {**item, "status": "completed", "arguments": arguments}
        self._emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)
        return self

    @staticmethod
    def _usage(
        input: int, output: int, cached: int, reasoning: int, cache_write: int | None = None
    ) -> dict[str, Any]:
        details = {"cached_tokens": cached}
        if cache_write is not None:
            details["cache_write_tokens"] = cache_write  # optional on the wire
        return {
            "input_tokens": input,
            "input_tokens_details": details,
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": input + output,
        }

    def completed(
        self,
        input: int = 5,
        output: int = 3,
        cached: int = 0,
        reasoning: int = 0,
        cache_write: int | None = None,
    ) -> ResponsesStream:
        usage = self._usage(input, output, cached, reasoning, cache_write)
        self._emit("response.completed", response=self._response("completed", usage=usage))
        return self

    def incomplete(
        self, reason: str = "max_output_tokens", input: int = 5, output: int = 3
    ) -> ResponsesStream:
        usage = self._usage(input, output, 0, 0)
        response = self._response("incomplete", usage=usage, incomplete_details={"reason": reason})
        self._emit("response.incomplete", response=response)
        return self

    def failed(self, code: str, message: str) -> ResponsesStream:
        response = self._response("failed", error={"code": code, "message": message})
        self._emit("response.failed", response=response)
        return self

    def error(self, code: str, message: str) -> ResponsesStream:
        self._emit("error", code=code, message=message, param=None)
        return self

    def stream(self, *, cut: bool = False, delay_s: float = 0.0) -> Stream:
        pieces = [sse_event(kind, data) for kind, data in self.events]
        final = next(
            (data["response"] for kind, data in reversed(self.events) if "response" in data),
            None,
        )
        return Stream(pieces, delay_s=delay_s, cut=cut, final=final)
