"""`MCPConnection`: a live connection to one MCP server, its tools as Tiller tools.

    async with MCPConnection.from_spec("python weather_server.py") as weather:
        agent = Agent(model, tools=weather.tools)
        await agent.run("Will it rain in Lyon?")

The SDK's client lives in a task of its own. Its transport runs anyio task
groups that cancel the task hosting them when a transport fails (an HTTP
server that vanishes mid-call); hosting them apart keeps that from cancelling
the agent's run. Each call races the answer against the connection closing and
against `call_timeout_s`, so a server that dies or hangs gives an error result,
never a hang. Leaving the `async with` ends the session and stops the
subprocess (the SDK closes stdin, then terminates, then kills its process group).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from tiller.errors import TillerError, ToolError
from tiller.messages import ToolResult
from tiller.tools.base import ToolContext
from tiller.tools.mcp.screening import SkippedTool, safe_tool_name, screen_listing
from tiller.tools.mcp.servers import HttpServer, MCPServerSpec, StdioServer, parse_server_spec
from tiller.tools.mcp.tool import MCPTool

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import Tool as WireTool

log = logging.getLogger("tiller.mcp")

_MAX_PAGES = 100  # a server whose listing never ends cannot hang the connection
_STDERR_TAIL = 800  # characters of a dead server's stderr shown in messages
_CANCEL_GRACE_S = 5.0  # how long a cancelled call may take to wind down


class MCPConnectError(TillerError):
    """An MCP server could not be started, reached, or initialised."""


class MCPConnection:
    """One MCP server's session; use as `async with`. `tools` are ready inside it."""

    def __init__(
        self,
        server: MCPServerSpec,
        *,
        name: str | None = None,
        prefix: str = "",
        call_timeout_s: float | None = 60.0,
        connect_timeout_s: float = 30.0,
        max_output_lines: int | None = None,
        max_line_chars: int | None = None,
    ) -> None:
        self.server = server
        # Caps on a result's text (None: the shell tool's, 200 lines of 2000 characters).
        self.max_output_lines = max_output_lines
        self.max_line_chars = max_line_chars
        self.name = name or server.label
        self.prefix = prefix
        self.call_timeout_s = call_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.tools: list[MCPTool] = []
        self.skipped: list[SkippedTool] = []
        self.instructions: str | None = None
        self._client: Client | None = None
        self._runner: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[list[WireTool]] | None = None
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._failure: BaseException | None = None
        self._violation: str | None = None  # what broke the protocol, as one line
        self._stderr: IO[str] | None = None

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> MCPConnection:
        """From a command line (`"python server.py --flag"`) or a URL (`http://host/mcp`)."""
        return cls(parse_server_spec(spec), **options)

    def __repr__(self) -> str:
        return f"MCPConnection({self.name!r}, {self.server})"

    @property
    def connected(self) -> bool:
        return self._client is not None and not self._closed.is_set()

    # ── lifecycle ───────────────────────────────────────────────────────────

    async def __aenter__(self) -> MCPConnection:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def connect(self) -> None:
        """Start or reach the server, initialise the session and list its tools."""
        if self._runner is not None:
            raise TillerError(f"MCP connection {self.name!r} was already opened; make a new one")
        ready: asyncio.Future[list[WireTool]] = asyncio.get_running_loop().create_future()
        self._ready = ready
        self._runner = asyncio.create_task(self._serve(ready), name=f"mcp:{self.name}")
        try:
            listing = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout_s)
        except TimeoutError:
            await self.aclose()
            raise MCPConnectError(
                f"MCP server {self.name!r} ({self.server}) did not finish connecting within "
                f"{self.connect_timeout_s:g}s; check that it is an MCP server and that it starts."
            ) from None
        except BaseException:
            await self.aclose()
            raise
        self.tools = self._make_tools(listing)

    async def aclose(self) -> None:
        """End the session and stop the server's process; safe to call twice."""
        self._stop.set()
        runner = self._runner
        if runner is not None and not runner.done():
            ready = self._ready
            if ready is not None and ready.done():
                # Connected: let the session end in order. The SDK's shutdown is bounded
                # (stdin close, then terminate, then kill: a few seconds at most).
                await asyncio.wait([runner], timeout=15)
            if not runner.done():
                # Still connecting (or stuck): cancelling still stops the process, shielded.
                runner.cancel()
                await asyncio.wait([runner])
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _serve(self, ready: asyncio.Future[list[WireTool]]) -> None:
        from mcp import Client
        from mcp.types import Implementation

        from tiller._version import __version__

        try:
            client = Client(
                self._transport(),
                cache=None,
                client_info=Implementation(name="tiller", version=__version__),
            )
            async with client:
                self._client = client
                self.instructions = client.instructions
                listing = await self._list_tools(client)
                if not ready.done():
                    ready.set_result(listing)
                await self._stop.wait()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # also the transport's own cancellation when it fails
            self._failure = exc
            if self._stop.is_set():
                pass  # being closed: nobody waits for the outcome any more
            elif not ready.done():
                ready.set_exception(self._connect_error(exc))
            elif self._violation is not None:
                log.warning("%s", self._violation)
            else:
                log.warning("MCP server %r: connection lost: %s", self.name, _describe(exc))
        finally:
            self._client = None
            self._closed.set()

    def _transport(self) -> Any:
        from tiller.tools.mcp.screening import quiet_sdk_parse_failures, screened

        quiet_sdk_parse_failures()

        server = self.server
        if isinstance(server, StdioServer):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            # The server's stderr is kept (not shown): its tail explains a crash.
            self._stderr = tempfile.TemporaryFile(  # noqa: SIM115 - closed by aclose()
                "w+", encoding="utf-8", errors="replace"
            )
            params = StdioServerParameters(
                command=server.command,
                args=list(server.args),
                env=server.env or None,
                cwd=server.cwd,
            )
            transport: Any = stdio_client(params, errlog=self._stderr)
        else:
            from mcp.client.streamable_http import streamable_http_client

            http_client = None
            if server.headers:
                import httpx2

                http_client = httpx2.AsyncClient(
                    headers=server.headers, timeout=httpx2.Timeout(30.0, read=300.0)
                )
            transport = streamable_http_client(server.url, http_client=http_client)

        def on_listing(result: dict[str, Any]) -> None:
            screen_listing(result, self.name, self.skipped)

        return screened(transport, on_listing, self._broke_protocol)

    def _broke_protocol(self, error: Exception) -> None:
        from tiller.tools.mcp.screening import what_was_sent

        if self._violation is not None:
            return
        where = "on stdout" if isinstance(self.server, StdioServer) else "as a message"
        self._violation = (
            f"MCP server {self.name!r} broke the protocol: it sent {what_was_sent(error)} "
            f"{where}, which is not a JSON-RPC message"
        )
        if isinstance(self.server, StdioServer):
            self._violation += "; a stdio server must write its logs to stderr, not stdout"

    async def _list_tools(self, client: Client) -> list[WireTool]:
        tools: list[WireTool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    def _make_tools(self, listing: list[WireTool]) -> list[MCPTool]:
        tools: list[MCPTool] = []
        seen: set[str] = set()
        for wire in listing:
            name = safe_tool_name(wire.name, self.prefix)
            if name in seen:
                entry = SkippedTool(
                    self.name, wire.name, f"its name becomes {name!r}, like an earlier tool's"
                )
                log.warning("%s", entry)
                self.skipped.append(entry)
                continue
            seen.add(name)
            description = (
                wire.description or wire.title or f"Tool {wire.name} of MCP server {self.name}."
            )
            tools.append(MCPTool(self, name, wire.name, description, dict(wire.input_schema)))
        return tools

    # ── calls ───────────────────────────────────────────────────────────────

    async def call(self, tool_name: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call a tool by its server-side name. Failures raise `ToolError` with a clear message."""
        from mcp import MCPError
        from mcp.types import CONNECTION_CLOSED, PARSE_ERROR

        from tiller.tools.mcp.results import MAX_LINE_CHARS, MAX_OUTPUT_LINES, to_tool_result

        client = self._client
        if client is None or self._closed.is_set():
            raise ToolError(self._gone_text(tool_name))

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            figures = f"{progress:g}/{total:g}" if total else f"{progress:g}"
            ctx.on_progress(f"{figures} {message}" if message else figures)

        call = asyncio.ensure_future(
            client.call_tool(tool_name, arguments, progress_callback=progress)
        )
        closing = asyncio.ensure_future(self._closed.wait())
        try:
            done, _ = await asyncio.wait(
                {call, closing}, timeout=self.call_timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:
            await _cancel(call)
            raise
        finally:
            closing.cancel()
        if call not in done:
            await _cancel(call)
            if self._closed.is_set():
                raise ToolError(self._died_text(tool_name))
            raise ToolError(
                f"MCP tool {tool_name!r} (server {self.name!r}) did not answer within "
                f"{self.call_timeout_s:g}s; the call was cancelled. Try again with a smaller "
                "request, or do without this tool."
            )
        try:
            result = call.result()
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise ToolError(self._died_text(tool_name)) from None
            if exc.code == PARSE_ERROR:
                raise ToolError(
                    f"MCP server {self.name!r} answered the call to {tool_name!r} with something "
                    "that is not a JSON-RPC message; the call failed."
                ) from None
            raise ToolError(
                f"MCP server {self.name!r} refused the call to {tool_name!r}: {exc.message} "
                f"(error {exc.code})."
            ) from None
        except Exception as exc:
            raise ToolError(
                f"MCP tool {tool_name!r} (server {self.name!r}) failed: {_describe(exc)}"
            ) from None
        return to_tool_result(
            result,
            max_lines=self.max_output_lines or MAX_OUTPUT_LINES,
            max_line_chars=self.max_line_chars or MAX_LINE_CHARS,
        )

    # ── messages ────────────────────────────────────────────────────────────

    def stderr_tail(self) -> str:
        """The end of a stdio server's stderr ("" for HTTP servers or when it wrote none)."""
        stream = self._stderr
        if stream is None or stream.closed:
            return ""
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
            end = stream.seek(0, 2)
            stream.seek(max(0, end - _STDERR_TAIL * 4))
            return stream.read()[-_STDERR_TAIL:].strip()
        return ""

    def _died_text(self, tool_name: str) -> str:
        if self._violation is not None:
            return f"{self._violation}; {tool_name!r} and the server's other tools cannot be used."
        tail = self.stderr_tail()
        said = f" Its stderr ended with:\n{tail}" if tail else ""
        return (
            f"MCP server {self.name!r} closed the connection during the call to {tool_name!r} "
            f"(the server stopped or crashed); its tools cannot be used any more in this run.{said}"
        )

    def _gone_text(self, tool_name: str) -> str:
        if self._violation is not None:
            return f"{self._violation}; {tool_name!r} and the server's other tools cannot be used."
        why = f" ({_describe(self._failure)})" if self._failure is not None else ""
        return (
            f"MCP server {self.name!r} is not connected{why}, so {tool_name!r} cannot run; "
            "do without its tools."
        )

    def _connect_error(self, exc: BaseException) -> MCPConnectError:
        if self._violation is not None:
            return MCPConnectError(self._violation)
        server = self.server
        cause = _describe(exc)
        if isinstance(server, HttpServer):
            text = (
                f"could not connect to MCP server {self.name!r} at {server.url}: {cause}. "
                "Check that the server is running and that the URL (often ending in /mcp) is right."
            )
        else:
            tail = self.stderr_tail()
            said = f"\nIts stderr ended with:\n{tail}" if tail else ""
            text = (
                f"could not start MCP server {self.name!r} ({server}): {cause}. "
                f"Check that the command runs an MCP server over stdio.{said}"
            )
        return MCPConnectError(text)


async def _cancel(task: asyncio.Future[Any]) -> None:
    task.cancel()
    await asyncio.wait([task], timeout=_CANCEL_GRACE_S)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it as never retrieved


def _describe(exc: BaseException) -> str:
    """The innermost meaningful error of an exception group, as `Type: message`."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    if isinstance(exc, asyncio.CancelledError):
        return "the connection was torn down"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
