"""A real MCP server for Tiller's tests, written with the SDK's `MCPServer`.

python toolbox.py           serve over stdio
python toolbox.py --http    serve Streamable HTTP on 127.0.0.1 at a free port,
                            printed as the first line of stdout; the endpoint is /mcp
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import EmbeddedResource, TextContent, TextResourceContents

# The smallest valid PNG: one transparent pixel.
PIXEL_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)

app = MCPServer("toolbox", log_level="WARNING", instructions="Test tools.")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@app.tool(name="lookup.word")
def lookup_word(word: str) -> str:
    """Look a word up (its name has a dot, which providers refuse)."""
    return f"{word}: a small rodent"


@app.tool()
def refuse(reason: str) -> str:
    """Fail with the given reason."""
    raise ToolError(reason)


@app.tool()
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=PIXEL_PNG, format="png")


@app.tool()
def forecast(city: str) -> dict[str, Any]:
    """Structured weather for a city."""
    return {"city": city, "rain_mm": 2.5}


@app.tool()
def document() -> list[TextContent | EmbeddedResource]:
    """A text block and an embedded text resource."""
    resource = TextResourceContents(
        uri="file:///notes.txt", mime_type="text/plain", text="line one"
    )
    return [
        TextContent(type="text", text="see the notes"),
        EmbeddedResource(type="resource", resource=resource),
    ]


@app.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count up to `steps`, reporting progress at each."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
    return f"counted to {steps}"


@app.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header ("" over stdio or when absent)."""
    return (ctx.headers or {}).get(name, "")


@app.tool()
def flood(lines: int, width: int) -> str:
    """`lines` numbered lines of `width` characters: megabytes of text on demand."""
    filler = "x" * max(0, width - 8)
    return "\n".join(f"{n:07d} {filler}" for n in range(1, lines + 1))


@app.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@app.tool()
def crash() -> str:
    """Exit the server process at once, mid-call."""
    print("toolbox: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@app.tool()
async def stall() -> str:
    """Never answer."""
    await anyio.sleep(3600)
    return "unreachable"


def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is printed: a client that connects while uvicorn is
    # still starting waits in the backlog instead of being refused.
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app.streamable_http_app(), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv[1:]:
        serve_http()
    else:
        app.run("stdio")
