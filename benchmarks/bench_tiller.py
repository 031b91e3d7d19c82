"""Loop-overhead benchmark for Tiller, driven by its own `FunctionModel`.

Usage: ``python bench_tiller.py --mode {w1,w2,concurrent} [--runs N]`` (same contract and
workload as the peer scripts in ``peers/``, whose harness it shares).

Like the peers' fake models (pydantic-ai's ``FunctionModel`` returning a ``ModelResponse``,
Agno's and the OpenAI Agents SDK's models returning a finished response), the function
answers with the finished `AssistantMessage`: no streamed deltas are simulated, so what is
timed is the loop, not a simulation of a provider's stream.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# os.path, not pathlib: what Tiller imports is timed (--mode startup) from the harness on.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))

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

import tiller
from tiller import Agent, FunctionModel, tool
from tiller.messages import (
    AssistantMessage,
    Content,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tiller.models import ModelRequest

USAGE = Usage(input_tokens=10, output_tokens=10)
MODEL = PROVIDER = "function"


def _tool_results_since_prompt(messages: Any) -> int:
    count = 0
    for message in reversed(messages):
        if isinstance(message, ToolResultMessage):
            count += 1
        elif isinstance(message, UserMessage):
            return count
    return count


def fake_model(request: ModelRequest) -> AssistantMessage:
    """Zero-latency model: 10 turns of 3 ``add`` calls, then the final text."""
    ModelStats.record(len(request.messages))
    calls = next_calls(_tool_results_since_prompt(request.messages))
    if not calls:
        return AssistantMessage([TextContent(FINAL_TEXT)], "stop", USAGE, MODEL, PROVIDER)
    content: list[Content] = [ToolCall(c.call_id, "add", {"a": c.a, "b": c.b}) for c in calls]
    return AssistantMessage(content, "tool_use", USAGE, MODEL, PROVIDER)


def _history() -> list[Message]:
    messages: list[Message] = []
    for question, answer in history_texts():
        messages.append(UserMessage([TextContent(question)]))
        messages.append(AssistantMessage([TextContent(answer)], "stop", USAGE))
    return messages


def build(with_history: bool) -> RunFn:
    model = FunctionModel(fake_model)
    add_tool = tool(add)
    history = _history() if with_history else []

    async def run() -> Any:
        # A fresh Agent per run: Agents keep their history, and each run starts anew.
        agent = Agent(model, tools=[add_tool], history=history)
        return await agent.run(PROMPT)

    return run


def inspect(result: Any) -> Observed:
    results = [int(m.text) for m in result.messages if isinstance(m, ToolResultMessage)]
    return Observed(output=result.text, tool_results=results)


if __name__ == "__main__":
    main(framework="tiller", version=tiller.__version__, build=build, inspect=inspect)
