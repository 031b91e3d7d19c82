"""An MCP server (the SDK's low-level `Server`, over stdio) that lists tools with broken schemas.

`bad_type` and `bad_minimum` have object schemas that are not valid JSON Schema;
the SDK sends them as they are. With `--root-array`, the `good_too` tool's root
type is rewritten to "array" on the wire (the SDK itself refuses to send that),
as a server written without the SDK might.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    JSONRPCResponse,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

NUMBER = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOLS = [
    Tool(name="good", description="Double a number.", input_schema=NUMBER),
    Tool(
        name="bad_type",
        description="A property of a type that does not exist.",
        input_schema={"type": "object", "properties": {"n": {"type": "integr"}}},
    ),
    Tool(
        name="bad_minimum",
        description="A minimum that is not a number.",
        input_schema={"type": "object", "properties": {"n": {"type": "integer", "minimum": "0"}}},
    ),
    Tool(name="good_too", description="Triple a number.", input_schema=NUMBER),
]


async def list_tools(
    ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(
    ctx: ServerRequestContext[Any], params: CallToolRequestParams
) -> CallToolResult:
    n = int((params.arguments or {})["n"])
    factor = {"good": 2, "good_too": 3}.get(params.name, 0)
    return CallToolResult(content=[TextContent(type="text", text=str(n * factor))])


server = Server("bad-schemas", on_list_tools=list_tools, on_call_tool=call_tool)


class RootArrayWrite:
    """Rewrites `good_too`'s schema root type in every tools/list answer."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if isinstance(message, JSONRPCResponse) and isinstance(message.result.get("tools"), list):
            for tool in message.result["tools"]:
                if tool.get("name") == "good_too":
                    tool["inputSchema"] = {"type": "array", "items": {"type": "integer"}}
        await self.inner.send(item)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> RootArrayWrite:
        await self.inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self.inner.__aexit__(exc_type, exc, tb)
        return result


async def main() -> None:
    async with stdio_server() as (read, write):
        if "--root-array" in sys.argv[1:]:
            write = RootArrayWrite(write)
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
