"""MCP servers' tools as Tiller tools, over stdio or Streamable HTTP (the official `mcp` SDK).

    from tiller.tools.mcp import MCPConnection

    async with MCPConnection.from_spec("python server.py") as server:
        agent = Agent(model, tools=server.tools)

Names load on first use, and the `mcp` SDK only when a connection opens, so
importing this package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiller._lazy import lazy_exports

if TYPE_CHECKING:
    from tiller.tools.mcp.connection import (
        MCPConnectError as MCPConnectError,
        MCPConnection as MCPConnection,
    )
    from tiller.tools.mcp.screening import SkippedTool as SkippedTool
    from tiller.tools.mcp.servers import (
        HttpServer as HttpServer,
        MCPServerSpec as MCPServerSpec,
        StdioServer as StdioServer,
        parse_server_spec as parse_server_spec,
    )
    from tiller.tools.mcp.tool import MCPTool as MCPTool

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
