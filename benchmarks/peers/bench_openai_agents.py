"""Loop-overhead benchmark for the OpenAI Agents SDK, driven by a scripted ``Model`` subclass.

Usage: ``python bench_openai_agents.py --mode {w1,w2,concurrent} [--runs N]``
"""

import json
from collections.abc import AsyncIterator
from typing import Any

from _harness import (
    FINAL_TEXT,
    MODEL_CALLS,
    PROMPT,
    ModelStats,
    Observed,
    RunFn,
    add,
    history_texts,
    main,
    next_calls,
)
from agents import (
    Agent,
    ModelResponse,
    RunConfig,
    Runner,
    ToolCallOutputItem,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)


def _field(item: Any, name: str) -> Any:
    # Input items are usually plain dicts, but the SDK may hand back typed models too.
    if isinstance(item, dict):
        return item.get(name)
    return getattr(item, name, None)


def _tool_results_since_prompt(items: str | list[Any]) -> int:
    if isinstance(items, str):
        return 0
    count = 0
    for item in reversed(items):
        kind = _field(item, "type")
        if kind == "function_call_output":
            count += 1
        elif _field(item, "role") == "user":
            return count
    return count


class ScriptedModel(Model):
    """Zero-latency model: 10 turns of 3 ``add`` calls, then the final text."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
        **kwargs: Any,
    ) -> ModelResponse:
        ModelStats.record(1 if isinstance(input, str) else len(input))
        calls = next_calls(_tool_results_since_prompt(input))
        output: list[Any]
        if calls:
            output = [
                ResponseFunctionToolCall(
                    type="function_call",
                    id=f"fc_{c.call_id}",
                    call_id=c.call_id,
                    name="add",
                    arguments=json.dumps({"a": c.a, "b": c.b}),
                    status="completed",
                )
                for c in calls
            ]
        else:
            output = [
                ResponseOutputMessage(
                    id="msg_final",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[
                        ResponseOutputText(type="output_text", text=FINAL_TEXT, annotations=[])
                    ],
                )
            ]
        usage = Usage(requests=1, input_tokens=10, output_tokens=10, total_tokens=20)
        return ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the benchmark does not stream")


def _history() -> list[Any]:
    items: list[Any] = []
    for question, answer in history_texts():
        items.append({"role": "user", "content": question})
        items.append({"role": "assistant", "content": answer})
    return items


def build(with_history: bool) -> RunFn:
    set_tracing_disabled(True)
    agent = Agent(name="bench", model=ScriptedModel(), tools=[function_tool(add)])
    config = RunConfig(tracing_disabled=True)
    history = _history() if with_history else None
    # The SDK counts every model call as a turn, and its default limit (10) is below our 11.
    max_turns = MODEL_CALLS + 5

    async def run() -> Any:
        run_input: str | list[Any] = (
            [*history, {"role": "user", "content": PROMPT}] if history is not None else PROMPT
        )
        return await Runner.run(agent, run_input, max_turns=max_turns, run_config=config)

    return run


def inspect(result: Any) -> Observed:
    results = [int(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    return Observed(output=result.final_output, tool_results=results)


def _version() -> str:
    # Looked up after the start-up clock stops, and imported only then: importlib.metadata
    # is no part of the framework's start-up.
    from importlib.metadata import version

    return version("openai-agents")


if __name__ == "__main__":
    main(
        framework="openai-agents",
        version=_version,
        build=build,
        inspect=inspect,
    )
