"""`FunctionModel`: a model whose replies come from your function, for tests.

The function gets the `ModelRequest` and returns (or, if async, resolves to)
what `ScriptedModel` accepts as a step: a string, a `Reply`, a `Fail`, or an
`AssistantMessage`.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeAlias

from tiller.models.base import ModelRequest, StreamItem
from tiller.models.scripted import Step, stream_step

ReplyFunction: TypeAlias = Callable[[ModelRequest], Step | Awaitable[Step]]


class FunctionModel:
    def __init__(
        self,
        function: ReplyFunction,
        *,
        name: str = "function",
        context_window: int | None = None,
        endpoint: str = "",
    ) -> None:
        self.function = function
        self._name = name
        self.context_window = context_window
        self.endpoint = endpoint  # a base URL: acts as a model on a server (circuit breakers)
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def provider(self) -> str:
        return "function"

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        step = self.function(request)
        if inspect.isawaitable(step):
            return self._stream_awaited(step)
        return stream_step(step, self._name, "function")

    async def _stream_awaited(self, pending: Awaitable[Step]) -> AsyncIterator[StreamItem]:
        step = await pending
        async for item in stream_step(step, self._name, "function"):
            yield item
