"""Loop-overhead benchmark for LangGraph's prebuilt ReAct agent with a fake langchain chat model.

Usage: ``python bench_langgraph.py --mode {w1,w2,concurrent} [--runs N]``
"""

import warnings
from collections.abc import Callable, Sequence
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
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import create_react_agent


def _tool_results_since_prompt(messages: list[BaseMessage]) -> int:
    count = 0
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            count += 1
        elif isinstance(message, HumanMessage):
            return count
    return count


def _reply(messages: list[BaseMessage]) -> ChatResult:
    ModelStats.record(len(messages))
    calls = next_calls(_tool_results_since_prompt(messages))
    if calls:
        message = AIMessage(
            content="",
            tool_calls=[
                {"name": "add", "args": {"a": c.a, "b": c.b}, "id": c.call_id, "type": "tool_call"}
                for c in calls
            ],
        )
    else:
        message = AIMessage(content=FINAL_TEXT)
    message.usage_metadata = {"input_tokens": 10, "output_tokens": 10, "total_tokens": 20}
    return ChatResult(generations=[ChatGeneration(message=message)])


class ScriptedChatModel(BaseChatModel):
    """Zero-latency chat model: 10 turns of 3 ``add`` calls, then the final text.

    Implements ``_agenerate`` natively, so no executor thread hop is measured, and ``bind_tools``
    the way real provider models do (``self.bind(tools=...)``).
    """

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return _reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return _reply(messages)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **kwargs)


def _history() -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for question, answer in history_texts():
        messages.append(HumanMessage(question))
        messages.append(AIMessage(answer))
    return messages


def build(with_history: bool) -> RunFn:
    with warnings.catch_warnings():
        # Deprecated in favour of langchain.agents.create_agent (the separate `langchain`
        # package, built on top of it); it is still LangGraph's own prebuilt agent loop.
        warnings.simplefilter("ignore")
        graph = create_react_agent(ScriptedChatModel(), [add])
    history = _history() if with_history else []
    # Each model turn and each tool step is one graph super-step: 2 * 10 + 1 = 21.
    config: Any = {"recursion_limit": 4 * MODEL_CALLS}

    async def run() -> Any:
        return await graph.ainvoke({"messages": [*history, HumanMessage(PROMPT)]}, config)

    return run


def inspect(result: Any) -> Observed:
    messages: list[BaseMessage] = result["messages"]
    start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    new = messages[start:]
    results = [int(m.content) for m in new if isinstance(m, ToolMessage)]  # type: ignore[arg-type]
    return Observed(output=str(new[-1].content), tool_results=results)


def _version() -> str:
    # Looked up after the start-up clock stops, and imported only then: importlib.metadata
    # is no part of the framework's start-up.
    from importlib.metadata import version

    return version("langgraph")


if __name__ == "__main__":
    main(framework="langgraph", version=_version, build=build, inspect=inspect)
