"""`tiller run PROMPT`: one run, streamed to the terminal (or as JSON events)."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tiller.cli.error_output import errors_as_one_line, print_error
from tiller.cli.options import (
    ApiKeyOption,
    BaseUrlOption,
    BuiltinToolsOption,
    DebugOption,
    MaxTurnsOption,
    MCPOption,
    ModelOption,
    SystemOption,
    ToolsOption,
    WorkspaceOption,
)

if TYPE_CHECKING:
    from tiller.cli.agent_setup import AgentSetup


def run(
    prompt: Annotated[str, typer.Argument(help="What to ask the agent.")],
    model: ModelOption = None,
    json_events: Annotated[
        bool, typer.Option("--json", help="Print the event stream, one JSON object per line.")
    ] = False,
    max_turns: MaxTurnsOption = None,
    tools: ToolsOption = None,
    builtin: BuiltinToolsOption = None,
    workspace: WorkspaceOption = None,
    mcp: MCPOption = None,
    system: SystemOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    debug: DebugOption = False,
) -> None:
    """Run an agent on PROMPT, streaming its answer."""
    from tiller.cli.agent_setup import AgentSetup

    err = Console(stderr=True)
    try:
        with errors_as_one_line(err, debug=debug):
            setup = AgentSetup.from_options(
                tools or [],
                system,
                max_turns,
                model_spec=model,
                base_url=base_url,
                api_key=api_key,
                builtin_names=builtin or [],
                workspace=workspace,
            )
            code = asyncio.run(_run(prompt, model, json_events, setup, err, mcp or []))
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    raise typer.Exit(code)


async def _run(
    prompt: str,
    model_spec: str | None,
    json_events: bool,
    setup: AgentSetup,
    err: Console,
    mcp_specs: list[str],
) -> int:
    from tiller.cli.mcp_servers import mcp_servers

    async with mcp_servers(mcp_specs, setup, err):
        return await _run_agent(prompt, model_spec, json_events, setup, err)


async def _run_agent(
    prompt: str, model_spec: str | None, json_events: bool, setup: AgentSetup, err: Console
) -> int:
    from tiller.cli.rendering import TerminalRenderer
    from tiller.codec import dumps
    from tiller.events import AgentEvent

    agent = setup.build(model_spec)
    if json_events:

        def show(event: AgentEvent) -> None:
            try:
                sys.stdout.write(dumps(event) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:  # the reader went away (`| head`): stop quietly
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                agent.abort()

        agent.subscribe(show)
    else:
        agent.subscribe(TerminalRenderer(Console(), err))
    result = await agent.run(prompt)
    if result.stop_reason == "error":
        if not json_events:
            print_error(err, result.error)
        return 1
    return 0
