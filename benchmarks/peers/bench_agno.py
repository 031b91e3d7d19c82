"""Loop-overhead benchmark for Agno, driven by a scripted ``agno.models.base.Model`` subclass.

Usage: ``python bench_agno.py --mode {w1,w2,concurrent} [--runs N]``
"""

import json
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

# Agno sends a telemetry event per run unless told not to; the benchmark has no network.
os.environ.setdefault("AGNO_TELEMETRY", "false")

from _harness import (
    FINAL_TEXT,
    PROMPT,
    ModelStats,
    Observed,
    RunFn,
    add,
    history_texts,
    main,
    next_calls,
)
from agno.agent import Agent
from agno.metrics import MessageMetrics
from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse


def _tool_results_since_prompt(messages: list[Message]) -> int:
    count = 0
    for message in reversed(messages):
        if message.role == "tool":
            count += 1
        elif message.role == "user":
            return count
    return count


@dataclass
class ScriptedModel(Model):
    """Zero-latency model: 10 turns of 3 ``add`` calls, then the final text."""

    id: str = "scripted"
    name: str = "Scripted"
    provider: str = "benchmark"

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._reply(kwargs["messages"])

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._reply(kwargs["messages"])

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        raise NotImplementedError("the benchmark does not stream")

    def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        raise NotImplementedError("the benchmark does not stream")

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    @staticmethod
    def _reply(messages: list[Message]) -> ModelResponse:
        ModelStats.record(len(messages))
        calls = next_calls(_tool_results_since_prompt(messages))
        usage = MessageMetrics(input_tokens=10, output_tokens=10, total_tokens=20)
        if not calls:
            return ModelResponse(role="assistant", content=FINAL_TEXT, response_usage=usage)
        return ModelResponse(
            role="assistant",
            tool_calls=[
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {"name": "add", "arguments": json.dumps({"a": c.a, "b": c.b})},
                }
                for c in calls
            ],
            response_usage=usage,
        )


def _history() -> list[Message]:
    messages: list[Message] = []
    for question, answer in history_texts():
        messages.append(Message(role="user", content=question))
        messages.append(Message(role="assistant", content=answer))
    return messages


def build(with_history: bool) -> RunFn:
    agent = Agent(model=ScriptedModel(), tools=[add], telemetry=False)
    history = _history() if with_history else None

    async def run() -> Any:
        if history is None:
            return await agent.arun(PROMPT)
        # Agno takes prior turns as a list of Messages in the run input (its session-history
        # route needs a database, which would add storage cost the other peers don't pay).
        return await agent.arun([*history, Message(role="user", content=PROMPT)])

    return run


def inspect(result: Any) -> Observed:
    messages: list[Message] = result.messages or []
    start = max(i for i, m in enumerate(messages) if m.role == "user")
    results = [int(m.content) for m in messages[start:] if m.role == "tool"]  # type: ignore[arg-type]
    return Observed(output=str(result.content), tool_results=results)


def _version() -> str:
    # Looked up after the start-up clock stops, and imported only then: importlib.metadata
    # is no part of the framework's start-up.
    from importlib.metadata import version

    return version("agno")


if __name__ == "__main__":
    main(framework="agno", version=_version, build=build, inspect=inspect)
