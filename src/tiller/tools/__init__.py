"""Tools: the `Tool` protocol, `@tool` for functions, and the context a tool runs in."""

from tiller.messages import ToolResult
from tiller.tools.base import Tool, ToolContext, to_tool_result
from tiller.tools.function_tool import ArgumentsInvalid, FunctionTool, tool

__all__ = [
    "ArgumentsInvalid",
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolResult",
    "to_tool_result",
    "tool",
]
