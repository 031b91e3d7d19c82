"""MCP servers' tools as Tiller tools, over stdio or Streamable HTTP (the official `mcp` SDK).

    from tiller.tools.mcp import MCPConnection

    async with MCPConnection.from_spec("python server.py") as server:
        agent = Agent(model, tools=server.tools)

Names load on first use, and the `mcp` SDK only when a connection opens, so
importing this package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "MCPConnection": "tiller.tools.mcp.connection",
    "MCPConnectError": "tiller.tools.mcp.connection",
    "MCPTool": "tiller.tools.mcp.tool",
    "SkippedTool": "tiller.tools.mcp.screening",
    "StdioServer": "tiller.tools.mcp.servers",
    "HttpServer": "tiller.tools.mcp.servers",
    "MCPServerSpec": "tiller.tools.mcp.servers",
    "parse_server_spec": "tiller.tools.mcp.servers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tiller.tools.mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from tiller.tools.mcp.connection import MCPConnectError as MCPConnectError
    from tiller.tools.mcp.connection import MCPConnection as MCPConnection
    from tiller.tools.mcp.screening import SkippedTool as SkippedTool
    from tiller.tools.mcp.servers import HttpServer as HttpServer
    from tiller.tools.mcp.servers import MCPServerSpec as MCPServerSpec
    from tiller.tools.mcp.servers import StdioServer as StdioServer
    from tiller.tools.mcp.servers import parse_server_spec as parse_server_spec
    from tiller.tools.mcp.tool import MCPTool as MCPTool
