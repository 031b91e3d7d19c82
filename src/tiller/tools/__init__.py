"""Tools: the `Tool` protocol, `@tool` for functions, and the context a tool runs in.

`SubAgentTool` and the MCP names load on first use (`tiller.tools.mcp` never
imports the `mcp` SDK until a connection opens).
"""

import importlib
from typing import TYPE_CHECKING, Any

from tiller.messages import ToolResult
from tiller.tools.base import Tool, ToolContext, to_tool_result
from tiller.tools.function_tool import ArgumentsInvalid, FunctionTool, tool

_LAZY: dict[str, str] = {
    "SubAgentTool": "tiller.tools.subagent",
    "MCPConnection": "tiller.tools.mcp",
    "MCPTool": "tiller.tools.mcp",
}

__all__ = [
    "ArgumentsInvalid",
    "FunctionTool",
    "MCPConnection",
    "MCPTool",
    "SubAgentTool",
    "Tool",
    "ToolContext",
    "ToolResult",
    "to_tool_result",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tiller.tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from tiller.tools.mcp import MCPConnection as MCPConnection
    from tiller.tools.mcp import MCPTool as MCPTool
    from tiller.tools.subagent import SubAgentTool as SubAgentTool
