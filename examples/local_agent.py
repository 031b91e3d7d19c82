"""An agent on the embedded model (SmolLM2-135M-Instruct): no network, no API key.

It has a calculator tool; the answer streams as it is generated, and each tool
call is shown as it runs. Run it with `make demo`.
"""

from __future__ import annotations

import ast
import asyncio
import operator
import sys
import time
from collections.abc import Callable

from tiller import Agent, tool
from tiller.events import AgentEvent, MessageUpdate, TextDelta, ToolExecutionEnd, ToolExecutionStart

_OPERATORS: dict[type[ast.AST], Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
}


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        raise ValueError("only numbers and + - * / are allowed")

    result = value(ast.parse(expression, mode="eval").body)
    return str(int(result)) if float(result).is_integer() else f"{result:.6g}"


def show(event: AgentEvent) -> None:
    if isinstance(event, MessageUpdate) and isinstance(event.delta, TextDelta):
        print(event.delta.text, end="", flush=True)
    elif isinstance(event, ToolExecutionStart):
        print(f"[calling {event.tool_name}({event.arguments})]", flush=True)
    elif isinstance(event, ToolExecutionEnd):
        print(f"[{event.tool_name} returned {event.result.text!r}]", flush=True)


async def main(question: str) -> None:
    agent = Agent("local:smollm2", tools=[calculator], system_prompt="You are a careful assistant.")
    agent.subscribe(show)
    print(f"> {question}")
    started = time.perf_counter()
    result = await agent.run(question)
    elapsed = time.perf_counter() - started
    print(
        f"\n[{result.turns} turns, {result.usage.input_tokens} tokens in, "
        f"{result.usage.output_tokens} out, {elapsed:.1f}s, stop: {result.stop_reason}]"
    )


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or "What is 250 - 75?"))
