"""Where an MCP server is: a command to run (stdio) or a URL (Streamable HTTP).

Plain data, no SDK import: `parse_server_spec` is what `tiller run --mcp` uses.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tiller.errors import ConfigError


@dataclass(slots=True, frozen=True)
class StdioServer:
    """An MCP server started as a subprocess and spoken to over its stdin/stdout.

    The server gets the MCP SDK's safe default environment (PATH, HOME, ...) plus
    `env`; it does not inherit API keys or other secrets from this process.
    """

    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None

    @property
    def label(self) -> str:
        """A short name for messages: the script it runs, else the command."""
        for arg in reversed(self.args):
            if not arg.startswith("-"):
                return Path(arg).stem or arg
        return Path(self.command).name

    def __str__(self) -> str:
        return shlex.join([self.command, *self.args])


@dataclass(slots=True, frozen=True)
class HttpServer:
    """An MCP server reached over Streamable HTTP at `url` (e.g. http://127.0.0.1:8000/mcp)."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return urlsplit(self.url).netloc or self.url

    def __str__(self) -> str:
        return self.url


MCPServerSpec = StdioServer | HttpServer


def parse_server_spec(spec: str) -> MCPServerSpec:
    """`http(s)://...` is a Streamable HTTP server; anything else is a command line to run."""
    text = spec.strip()
    if not text:
        raise ConfigError("--mcp needs a command to run (e.g. 'python server.py') or a URL")
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("http", "https"):
        if not urlsplit(text).netloc:
            raise ConfigError(
                f"--mcp {spec!r}: the URL has no host; expected e.g. http://127.0.0.1:8000/mcp"
            )
        return HttpServer(text)
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(
            f"--mcp {spec!r}: cannot split the command line ({exc}); check quotes"
        ) from None
    return StdioServer(words[0], tuple(words[1:]))
