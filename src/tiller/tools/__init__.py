"""Tools: the `Tool` protocol, `@tool` for functions, and the context a tool runs in.

The MCP names load on first use (`tiller.tools.mcp` never imports the `mcp` SDK
until a connection opens). `SubAgentTool`, which builds agents, is in `tiller.agent`.
"""

from typing import TYPE_CHECKING

from tiller._lazy import lazy_exports
from tiller.messages import ToolResult
from tiller.tools.base import Tool, ToolContext, to_tool_result
from tiller.tools.function_tool import ArgumentsInvalid, FunctionTool, as_tool, tool

if TYPE_CHECKING:
    from tiller.tools.mcp import MCPConnection as MCPConnection, MCPTool as MCPTool

__getattr__, __dir__, _lazy = lazy_exports(__name__, __file__)
__all__ = [
    "ArgumentsInvalid",
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolResult",
    "as_tool",
    "to_tool_result",
    "tool",
    *_lazy,
]
