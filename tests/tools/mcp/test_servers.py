"""Server specs: what `--mcp` accepts, and headers sent to HTTP servers."""

from __future__ import annotations

import pytest

from tests.tools.mcp.conftest import HttpToolbox
from tiller.cancellation import CancelToken
from tiller.errors import ConfigError
from tiller.tools.base import ToolContext
from tiller.tools.mcp import HttpServer, MCPConnection, StdioServer, parse_server_spec


def test_a_url_is_an_http_server_anything_else_a_command() -> None:
    assert parse_server_spec("http://127.0.0.1:8000/mcp") == HttpServer("http://127.0.0.1:8000/mcp")
    assert parse_server_spec(" HTTPS://example.com/mcp ") == HttpServer("HTTPS://example.com/mcp")
    spec = parse_server_spec("npx -y '@scope/server files' --root ./data")
    assert spec == StdioServer("npx", ("-y", "@scope/server files", "--root", "./data"))
    assert spec.label == "data"
    assert StdioServer("python", ("weather.py", "--verbose")).label == "weather"
    assert StdioServer("/usr/bin/mcp-git").label == "mcp-git"
    assert HttpServer("http://127.0.0.1:9/mcp").label == "127.0.0.1:9"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "--mcp needs a command to run"),
        ("python 'server.py", "cannot split the command line"),
        ("http:///mcp", "the URL has no host"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_server_spec(spec)


async def test_headers_reach_an_http_server(http_toolbox: HttpToolbox) -> None:
    spec = HttpServer(http_toolbox.spec.url, headers={"Authorization": "Bearer t0ken"})
    async with MCPConnection(spec) as server:
        header = next(t for t in server.tools if t.name == "header")
        ctx = ToolContext("c1", "header", CancelToken())
        result = await header.execute({"name": "authorization"}, ctx)
        assert result.text == "Bearer t0ken"
