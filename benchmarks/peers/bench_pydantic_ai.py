"""Loop-overhead benchmark for pydantic-ai, driven by its own ``FunctionModel``.

Usage: ``python bench_pydantic_ai.py --mode {w1,w2,concurrent} [--runs N]``
"""

from typing import Any

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
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage


def _tool_results_since_prompt(messages: list[ModelMessage]) -> int:
    count = 0
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                count += 1
            elif isinstance(part, UserPromptPart):
                return count
    return count


async def fake_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Zero-latency model: 10 turns of 3 ``add`` calls, then the final text."""
    ModelStats.record(len(messages))
    calls = next_calls(_tool_results_since_prompt(messages))
    # Report usage like a real provider does; otherwise FunctionModel estimates token counts
    # by walking every message, which would bill a fake-model cost to the agent loop.
    usage = RequestUsage(input_tokens=10, output_tokens=10)
    if not calls:
        return ModelResponse(parts=[TextPart(FINAL_TEXT)], usage=usage)
    return ModelResponse(
        parts=[
            ToolCallPart(tool_name="add", args={"a": c.a, "b": c.b}, tool_call_id=c.call_id)
            for c in calls
        ],
        usage=usage,
    )


def _history() -> list[ModelMessage]:
    messages: list[ModelMessage] = []
    for question, answer in history_texts():
        messages.append(ModelRequest(parts=[UserPromptPart(question)]))
        messages.append(ModelResponse(parts=[TextPart(answer)]))
    return messages


def build(with_history: bool) -> RunFn:
    agent = Agent(FunctionModel(fake_model), tools=[add])
    history = _history() if with_history else None

    async def run() -> Any:
        return await agent.run(PROMPT, message_history=history)

    return run


def inspect(result: Any) -> Observed:
    results = [
        int(part.content)
        for message in result.new_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    return Observed(output=result.output, tool_results=results)


def _version() -> str:
    # Looked up after the start-up clock stops, and imported only then: importlib.metadata
    # is no part of the framework's start-up.
    from importlib.metadata import version

    return version("pydantic-ai-slim")


if __name__ == "__main__":
    main(
        framework="pydantic-ai",
        version=_version,
        build=build,
        inspect=inspect,
    )
