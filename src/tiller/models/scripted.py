"""`ScriptedModel`: a model that replies from a queue of steps, for tests.

    model = ScriptedModel([
        Reply(calls=[call("add", a=1, b=2)]),
        Reply("The sum is 3.", chunk_size=4, delay_s=0.01),
        Fail(RateLimitError("slow down", retry_after=1)),
    ])

It records every request it received (`model.requests`) and
`model.assert_complete()` fails while steps remain.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tiller.errors import UsageError
from tiller.events import TextDelta, ThinkingDelta, ToolCallDelta
from tiller.messages import (
    AssistantMessage,
    Content,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from tiller.models.assembly import MessageAssembler
from tiller.models.base import ModelRequest, StreamItem

_call_ids = itertools.count(1)


@dataclass(slots=True)
class ScriptedCall:
    """A tool call to script. `arguments` may be raw text, to script malformed JSON."""

    name: str
    arguments: dict[str, Any] | str
    id: str


def call(
    name: str,
    arguments: dict[str, Any] | str | None = None,
    /,
    *,
    id: str | None = None,
    **kwargs: Any,
) -> ScriptedCall:
    """A scripted tool call: `call("add", a=1, b=2)` or `call("add", '{"a": 1,')`."""
    args: dict[str, Any] | str = kwargs if arguments is None else arguments
    return ScriptedCall(name, args, id or f"call_{next(_call_ids)}")


@dataclass(slots=True)
class Reply:
    """One assistant reply: text and/or tool calls, optionally streamed in chunks.

    `chunk_size` splits text and argument JSON into pieces of that many characters,
    with `delay_s` before each piece. `fail` is raised after the reply has streamed
    (a stream that breaks mid-way). `stop_reason` defaults to `tool_use` when there
    are calls, else `stop`.
    """

    text: str = ""
    calls: list[ScriptedCall] = field(default_factory=list)
    thinking: str | None = None
    chunk_size: int | None = None
    delay_s: float = 0.0
    stop_reason: StopReason | None = None
    usage: Usage | None = None
    fail: BaseException | None = None


@dataclass(slots=True)
class Fail:
    """Raise `error` instead of replying."""

    error: BaseException


Step: TypeAlias = Reply | Fail | AssistantMessage | str


def _pieces(text: str, size: int | None) -> list[str]:
    if size is None or size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


async def stream_step(step: Step, model: str, provider: str) -> AsyncIterator[StreamItem]:
    """Stream one step as a model would: deltas, then the finished message."""
    if isinstance(step, str):
        step = Reply(step)
    if isinstance(step, Fail):
        raise step.error
    if isinstance(step, AssistantMessage):
        yield step
        return

    deltas: list[TextDelta | ThinkingDelta | ToolCallDelta] = []
    index = 0
    if step.thinking is not None:
        deltas += [ThinkingDelta(index, p) for p in _pieces(step.thinking, step.chunk_size)]
        index += 1
    if step.text:
        deltas += [TextDelta(index, p) for p in _pieces(step.text, step.chunk_size)]
        index += 1
    if step.calls:
        from pydantic_core import to_json  # lazily: keeps `import tiller` light
    for c in step.calls:
        raw = c.arguments if isinstance(c.arguments, str) else to_json(c.arguments).decode()
        for n, piece in enumerate(_pieces(raw, step.chunk_size)):
            first = n == 0
            deltas.append(
                ToolCallDelta(
                    index, piece, id=c.id if first else None, name=c.name if first else None
                )
            )
        index += 1

    for delta in deltas:
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        yield delta
    if step.fail is not None:
        raise step.fail
    stop: StopReason = step.stop_reason or ("tool_use" if step.calls else "stop")
    if step.chunk_size is None and all(isinstance(c.arguments, dict) for c in step.calls):
        # Nothing was split: build the message directly rather than re-parsing the JSON.
        content = _direct_content(step)
        yield AssistantMessage(content, stop, step.usage or Usage(), model, provider)
        return
    assembler = MessageAssembler()
    for delta in deltas:
        assembler.add(delta)
    yield assembler.finish(stop, usage=step.usage, model=model, provider=provider)


def _direct_content(step: Reply) -> list[Content]:
    content: list[Content] = []
    if step.thinking is not None:
        content.append(ThinkingContent(step.thinking))
    if step.text:
        content.append(TextContent(step.text))
    content.extend(
        ToolCall(c.id, c.name, dict(c.arguments))
        for c in step.calls
        if isinstance(c.arguments, dict)
    )
    return content


class ScriptedModel:
    """Replies with the next scripted step for each request it receives."""

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        name: str = "scripted",
        context_window: int | None = None,
        endpoint: str = "",
    ) -> None:
        self._steps: deque[Step] = deque(steps)
        self._name = name
        self.context_window = context_window
        self.endpoint = endpoint  # a base URL: acts as a model on a server (circuit breakers)
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return "scripted"

    def add(self, *steps: Step) -> None:
        self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        if not self._steps:
            raise UsageError(
                f"ScriptedModel has no step left for request #{len(self.requests)}; "
                "script one more step"
            )
        return stream_step(self._steps.popleft(), self._name, "scripted")

    def assert_complete(self) -> None:
        if self._steps:
            raise AssertionError(f"ScriptedModel has {len(self._steps)} unused step(s)")
