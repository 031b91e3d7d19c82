"""`tiller run`, `tiller --version`."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated

import typer
from rich.console import Console

from tiller._version import __version__
from tiller.errors import TillerError

app = typer.Typer(
    name="tiller",
    help="Run LLM agents from the command line.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"tiller {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Tiller: a fast, trustworthy runtime for LLM agents."""


@app.command()
def run(
    prompt: Annotated[str, typer.Argument(help="What to ask the agent.")],
    model: Annotated[
        str | None,
        typer.Option("--model", "-m", help="Model as PROVIDER:NAME (default: $TILLER_MODEL)."),
    ] = None,
    json_events: Annotated[
        bool, typer.Option("--json", help="Print the event stream, one JSON object per line.")
    ] = False,
    max_turns: Annotated[
        int | None, typer.Option("--max-turns", min=1, help="Stop after this many model turns.")
    ] = None,
    tools: Annotated[
        list[str] | None,
        typer.Option("--tool", "-t", help="A tool as MODULE:FUNCTION (repeatable)."),
    ] = None,
    system: Annotated[str | None, typer.Option("--system", help="System prompt.")] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Run an agent on PROMPT, streaming its answer."""
    err = Console(stderr=True)
    try:
        code = asyncio.run(_run(prompt, model, json_events, max_turns, tools or [], system, err))
    except TillerError as exc:
        if debug:
            raise
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    raise typer.Exit(code)


async def _run(
    prompt: str,
    model_spec: str | None,
    json_events: bool,
    max_turns: int | None,
    tool_specs: list[str],
    system: str | None,
    err: Console,
) -> int:
    from tiller.agent import Agent
    from tiller.cli.rendering import TerminalRenderer
    from tiller.cli.tool_loading import load_tool
    from tiller.codec import dumps
    from tiller.errors import ConfigError
    from tiller.events import AgentEvent
    from tiller.loop.limits import Limits

    spec = model_spec or os.environ.get("TILLER_MODEL")
    if not spec:
        raise ConfigError("no model given: pass --model PROVIDER:NAME or set TILLER_MODEL")
    agent = Agent(
        spec,
        tools=[load_tool(t) for t in tool_specs],
        system_prompt=system,
        limits=Limits(max_turns=max_turns),
    )
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
            err.print(f"[red]error:[/] {result.error}", highlight=False)
        return 1
    return 0


def main() -> None:
    app()
