"""`MCPTool`: one tool of a connected MCP server, as a Tiller `Tool`."""

from __future__ import annotations

from typing import Any, Protocol

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools.base import ToolContext


class ServerCalls(Protocol):
    """What a tool needs of its server's connection (`MCPConnection` is one)."""

    @property
    def name(self) -> str: ...

    async def call(
        self, tool_name: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> ToolResult: ...


class MCPTool:
    """Calls `remote_name` on the server behind `connection`.

    `name` is the remote name made safe for every provider (and prefixed when
    the connection has a prefix). Arguments are checked against the server's
    schema before the call, so the model gets the same kind of message as for
    any other tool. Declares no `effect`: a server's own hints are untrusted,
    so permissions treat it as acting externally.
    """

    __slots__ = ("_validator", "connection", "description", "name", "parameters", "remote_name")

    def __init__(
        self,
        connection: ServerCalls,
        name: str,
        remote_name: str,
        description: str,
        parameters: dict[str, Any],
    ) -> None:
        self.connection = connection
        self.name = name
        self.remote_name = remote_name
        self.description = description
        self.parameters = parameters
        self._validator: Any = None  # a jsonschema validator, built on first call

    @property
    def timeout_s(self) -> float | None:
        # The connection enforces its own per-call timeout with a message naming the server.
        return None

    def __repr__(self) -> str:
        return f"MCPTool({self.name!r}, server={self.connection.name!r})"

    def check_arguments(self, arguments: dict[str, Any]) -> None:
        """Raise `ToolError` saying what to fix when `arguments` do not fit the schema."""
        if self._validator is None:
            from jsonschema.validators import validator_for  # type: ignore[import-untyped]

            self._validator = validator_for(self.parameters)(self.parameters)
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.path))
        if not errors:
            return
        lines = []
        for error in errors[:10]:
            where = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
            lines.append(f"- {where}: {error.message}")
        raise ToolError(
            f"Invalid arguments for tool {self.name!r}:\n"
            + "\n".join(lines)
            + "\nFix the arguments to match the tool's schema and call it again."
        )

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The server's result. A failure (arguments that do not fit the schema, a call
        the server refused or did not answer in time, a server that went away) is an
        error result saying what happened, marked `is_error` like the server's own."""
        try:
            self.check_arguments(arguments)
            return await self.connection.call(self.remote_name, arguments, ctx)
        except ToolError as exc:
            return ToolResult([TextContent(str(exc))], is_error=True)
