"""Tools with broken schemas are skipped with a reason; servers that cannot connect say why."""

from __future__ import annotations

import logging
import socket

import pytest

from tests.tools.mcp.conftest import PYTHON, stdio_server
from tiller.cancellation import CancelToken
from tiller.errors import TillerError
from tiller.tools.base import ToolContext
from tiller.tools.mcp import HttpServer, MCPConnectError, MCPConnection, StdioServer
from tiller.tools.mcp.screening import safe_tool_name, schema_problem, tool_problem


async def test_tools_with_invalid_schemas_are_skipped_and_the_rest_work(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="tiller.mcp")
    async with MCPConnection(stdio_server("bad_schemas.py")) as server:
        assert [t.name for t in server.tools] == ["good", "good_too"]
        skipped = {s.name: s.reason for s in server.skipped}
        assert skipped == {
            "bad_type": "its inputSchema is not valid JSON Schema at properties/n/type: "
            "'integr' is not valid under any of the given schemas",
            "bad_minimum": "its inputSchema is not valid JSON Schema at properties/n/minimum: "
            "'0' is not of type 'number'",
        }
        ctx = ToolContext("c1", "good", CancelToken())
        assert (await server.tools[0].execute({"n": 21}, ctx)).text == "42"
    warned = [r.getMessage() for r in caplog.records if r.name == "tiller.mcp"]
    assert "MCP server 'bad_schemas': tool 'bad_type' skipped: its inputSchema" in warned[0]
    assert len(warned) == 2


async def test_a_root_schema_that_is_not_an_object_skips_only_that_tool() -> None:
    # The SDK would reject the whole listing for this one tool; screening drops just it.
    async with MCPConnection(stdio_server("bad_schemas.py", "--root-array")) as server:
        assert [t.name for t in server.tools] == ["good"]
        reasons = {s.name: s.reason for s in server.skipped}
        assert reasons["good_too"] == (
            'its inputSchema must have "type": "object" at the root (got \'array\')'
        )
        assert set(reasons) == {"bad_type", "bad_minimum", "good_too"}


def test_schema_and_entry_problems() -> None:
    assert schema_problem({"type": "object", "properties": {}}) is None
    assert schema_problem(["x"]) == "its inputSchema is list, not a JSON object"
    assert schema_problem({"properties": {}}) == (
        'its inputSchema must have "type": "object" at the root (got None)'
    )
    assert tool_problem("tool") == "the entry is not a JSON object"
    assert tool_problem({"inputSchema": {"type": "object"}}) == "it has no name"
    problem = tool_problem({"name": "x", "inputSchema": {"type": "object"}, "description": 3})
    assert problem is not None
    assert problem.startswith("the entry is malformed at description:")


def test_safe_tool_names() -> None:
    assert safe_tool_name("lookup.word") == "lookup_word"
    assert safe_tool_name("search", prefix="web_") == "web_search"
    assert safe_tool_name("a" * 100) == "a" * 64


async def test_a_command_that_does_not_exist_is_a_clear_error() -> None:
    with pytest.raises(MCPConnectError) as caught:
        await MCPConnection(StdioServer("/nonexistent/mcp-server")).connect()
    text = str(caught.value)
    assert text.startswith("could not start MCP server 'mcp-server' (/nonexistent/mcp-server):")
    assert "FileNotFoundError" in text
    assert "Check that the command runs an MCP server over stdio." in text


async def test_a_server_that_exits_at_once_shows_its_stderr() -> None:
    broken = StdioServer(PYTHON, ("-c", "import sys; sys.exit('missing config file')"))
    with pytest.raises(MCPConnectError) as caught:
        await MCPConnection(broken, name="broken").connect()
    text = str(caught.value)
    assert text.startswith("could not start MCP server 'broken'")
    assert text.endswith("Its stderr ended with:\nmissing config file")


async def test_a_program_that_never_speaks_mcp_times_out_and_is_stopped() -> None:
    silent = StdioServer(PYTHON, ("-c", "import time; time.sleep(600)"))
    connection = MCPConnection(silent, name="silent", connect_timeout_s=1)
    with pytest.raises(MCPConnectError) as caught:
        await connection.connect()
    assert str(caught.value).startswith("MCP server 'silent' (")
    assert "did not finish connecting within 1s" in str(caught.value)
    # The autouse fixture checks that the sleeping process was stopped.


async def test_an_http_url_where_nothing_listens_is_a_clear_error() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago, now closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(MCPConnectError) as caught:
        await MCPConnection(HttpServer(f"http://127.0.0.1:{port}/mcp")).connect()
    text = str(caught.value)
    assert text.startswith(f"could not connect to MCP server '127.0.0.1:{port}' at http://")
    assert "ConnectError" in text
    assert "Check that the server is running" in text


async def test_a_connection_opens_once() -> None:
    connection = MCPConnection(stdio_server("bad_schemas.py"))
    async with connection:
        pass
    with pytest.raises(TillerError, match="already opened; make a new one"):
        await connection.connect()
