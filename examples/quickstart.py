"""Quickstart: an agent with a tool, its events streamed as they happen.

This example runs on `ScriptedModel`, Tiller's public test double, so it needs
no network and no API key: the "model" replies with a scripted tool call and a
scripted answer, and everything else (argument validation, the tool running in
the loop, events, history, save and restore) is the real runtime. Swap in a
real model string (`Agent("anthropic:claude-sonnet-4-5", ...)`) when a provider
is configured.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Annotated

from pydantic import Field

from tiller import Agent, ScriptedModel, tool
from tiller.events import AgentEvent, MessageUpdate, TextDelta, ToolExecutionEnd
from tiller.testing import Reply, call


@tool
def multiply(
    a: Annotated[float, Field(description="first factor")],
    b: Annotated[float, Field(description="second factor")],
) -> float:
    """Multiply two numbers."""
    return a * b


def show(event: AgentEvent) -> None:
    if isinstance(event, MessageUpdate) and isinstance(event.delta, TextDelta):
        print(event.delta.text, end="", flush=True)
    elif isinstance(event, ToolExecutionEnd):
        print(f"[tool {event.tool_name} -> {event.result.text} in {event.duration_ms:.2f} ms]")


async def main() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("multiply", a=6, b=7)]),
            Reply("Six times seven is 42.", chunk_size=4, delay_s=0.02),
        ]
    )
    agent = Agent(model, tools=[multiply], system_prompt="You are a careful calculator.")
    agent.subscribe(show)
    result = await agent.run("What is 6 times 7?")
    print()
    print(f"turns={result.turns} stop_reason={result.stop_reason} messages={len(agent.messages)}")

    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "history.json"
        agent.save(saved)
        restored = Agent(ScriptedModel(), tools=[multiply])
        restored.load(saved)
        print(f"restored {len(restored.messages)} messages from {saved.name}")


if __name__ == "__main__":
    asyncio.run(main())
