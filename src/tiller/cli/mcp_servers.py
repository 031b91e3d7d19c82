"""`--mcp`: MCP servers opened for one command, their tools added to the agent's."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from tiller.errors import ConfigError

if TYPE_CHECKING:
    from tiller.cli.agent_setup import AgentSetup


@asynccontextmanager
async def mcp_servers(specs: Sequence[str], setup: AgentSetup, err: Console) -> AsyncIterator[None]:
    """Connect to each server (a command line or a URL) and add its tools to `setup`.

    The servers stay connected inside the block and are closed (their processes
    stopped) when it ends, however it ends.
    """
    if not specs:
        yield
        return
    from tiller.tools.mcp import MCPConnection

    # Skipped tools are shown below, once, in the CLI's own style.
    logging.getLogger("tiller.mcp").addHandler(logging.NullHandler())
    async with AsyncExitStack() as stack:
        taken = {t.name for t in setup.tools}
        for spec in specs:
            connection = await stack.enter_async_context(MCPConnection.from_spec(spec))
            for skipped in connection.skipped:
                err.print(f"[yellow]warning:[/] {escape(str(skipped))}", highlight=False)
            for tool in connection.tools:
                if tool.name in taken:
                    raise ConfigError(
                        f"--mcp {spec!r}: its tool {tool.name!r} has the same name as another "
                        "tool; drop one of the tools or servers"
                    )
                taken.add(tool.name)
                setup.tools.append(tool)
        yield
