"""What a model answered the solver, seen from outside the solver (for the embedded-model tier).

`ObservedModel` wraps any model: it passes every request through unchanged and keeps, per
request, which structured answer was asked for (the one tool offered: `propose_goals`,
`submit_plan`, `submit_review`, or none for an agent's turn), how long the answer took,
its tokens, and the last few exchanges in full (what to show when something breaks).

`named_tools` reads the tools a plan answer names, from a call's arguments or from a JSON
object written as text (as the solver accepts both), without validating the rest: a plan
naming a tool that does not exist or that the policy denies must be refused whatever else
is wrong with it.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from tiller.messages import AssistantMessage
from tiller.models.base import Model, ModelRequest, StreamItem
from tiller.solve.structured import JSON_OBJECT

SHOWN = 1_500  # characters of a message kept for an exchange


@dataclass(slots=True)
class Exchange:
    """One request and its answer, shortened, as a report shows them."""

    asked: str  # the tool offered, or "" for a free turn
    last_message: str
    answer_text: str = ""
    answer_calls: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def as_data(self) -> dict[str, Any]:
        return asdict(self)


class ObservedModel:
    """`model`, with a record of what it was asked and what it answered."""

    def __init__(self, model: Model, keep: int = 3) -> None:
        self.model = model
        self.calls: dict[str, int] = {}  # by the tool offered ("" for none)
        self.seconds = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        # Answers given as text instead of a call, by the tool offered (JSON text or not).
        self.text_answers: dict[str, list[str]] = {}
        self.recent: deque[Exchange] = deque(maxlen=keep)

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def provider(self) -> str:
        return self.model.provider

    def __getattr__(self, name: str) -> Any:
        # Anything else the wrapped model offers (`context_window`, `load`, ...), as it is.
        if name.startswith("__") or name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)

    def reset(self) -> None:
        """Forget what was seen (a new task)."""
        self.calls.clear()
        self.text_answers.clear()
        self.recent.clear()
        self.seconds = 0.0
        self.input_tokens = self.output_tokens = 0

    def count(self, asked: str) -> int:
        return self.calls.get(asked, 0)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        asked = request.tools[0].name if len(request.tools) == 1 else ""
        self.calls[asked] = self.calls.get(asked, 0) + 1
        last = request.messages[-1] if request.messages else None
        exchange = Exchange(asked, _text_of(last)[:SHOWN])
        self.recent.append(exchange)
        start = time.perf_counter()
        try:
            async for item in self.model.stream(request):
                if isinstance(item, AssistantMessage):
                    exchange.answer_text = item.text[:SHOWN]
                    exchange.answer_calls = [
                        {"name": c.name, "arguments": _short(c.arguments)} for c in item.tool_calls
                    ]
                    self.input_tokens += item.usage.input_tokens
                    self.output_tokens += item.usage.output_tokens
                    if asked and not item.tool_calls:
                        self.text_answers.setdefault(asked, []).append(item.text)
                yield item
        except BaseException as exc:
            exchange.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            exchange.seconds = round(time.perf_counter() - start, 2)
            self.seconds += exchange.seconds


def named_tools(answer: object) -> list[str]:
    """The tools the steps of a plan answer name (`{"steps": [{"tool": …}, …]}`), in order;
    a text answer is read for its JSON object. Anything else names none."""
    if isinstance(answer, str):
        found = JSON_OBJECT.search(answer)
        if found is None:
            return []
        try:
            answer = json.loads(found.group(0))
        except json.JSONDecodeError:
            return []
    if not isinstance(answer, dict) or not isinstance(answer.get("steps"), list):
        return []
    return [
        step["tool"]
        for step in answer["steps"]
        if isinstance(step, dict) and isinstance(step.get("tool"), str)
    ]


def refusable(
    names: Iterable[str], known: set[str], denied: Callable[[str], bool]
) -> tuple[list[str], list[str]]:
    """The names among `names` that are not tools here, and those the policy denies."""
    listed = list(names)
    unknown = [n for n in listed if n not in known]
    return unknown, [n for n in listed if n in known and denied(n)]


def _text_of(message: object) -> str:
    text = getattr(message, "text", None)
    if isinstance(text, str) and text:
        return text
    return type(message).__name__ if message is not None else ""


def _short(arguments: dict[str, Any]) -> Any:
    text = json.dumps(arguments, default=str)
    return arguments if len(text) <= SHOWN else text[:SHOWN] + "…"
