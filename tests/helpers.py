"""Small things many tests share."""

from __future__ import annotations

from typing import Any

from tiller.events import AgentEvent
from tiller.loop import LoopConfig
from tiller.models.base import Model
from tiller.tools.base import Tool


class Recorder:
    """An event sink that keeps every event."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def config(model: Model, tools: list[Tool] | None = None, **kw: Any) -> LoopConfig:
    return LoopConfig(model=model, tools=tools or [], **kw)


class CountingCounter:
    """A text counter (one token a word) that counts how often it is asked."""

    name = "probe"

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return len(text.split())
