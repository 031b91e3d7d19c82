"""`tiller run PROMPT`: one run, streamed to the terminal (or as JSON events)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tiller.cli.error_output import errors_as_one_line, print_error
from tiller.cli.exit_status import EXIT_STATUS_HELP, INTERRUPTED, exit_status
from tiller.cli.options import (
    ApiKeyOption,
    BaseUrlOption,
    BuiltinToolsOption,
    DebugOption,
    MaxTurnsOption,
    MCPOption,
    ModelOption,
    ReadOnlyOption,
    ShellEnvOption,
    ShellNetworkOption,
    SystemOption,
    ToolsOption,
    UnsandboxedShellOption,
    WorkspaceOption,
    YesOption,
)

if TYPE_CHECKING:
    from tiller.cli.agent_setup import AgentSetup
    from tiller.cli.approval import ApprovalMode
    from tiller.cli.tool_threads import ToolThreads


def run(
    prompt: Annotated[str, typer.Argument(help="What to ask the agent; '-' reads it from stdin.")],
    model: ModelOption = None,
    json_events: Annotated[
        bool, typer.Option("--json", help="Print the event stream, one JSON object per line.")
    ] = False,
    max_turns: MaxTurnsOption = None,
    tools: ToolsOption = None,
    builtin: BuiltinToolsOption = None,
    workspace: WorkspaceOption = None,
    unsandboxed_shell: UnsandboxedShellOption = False,
    shell_network: ShellNetworkOption = False,
    shell_env: ShellEnvOption = None,
    mcp: MCPOption = None,
    system: SystemOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    yes: YesOption = False,
    read_only: ReadOnlyOption = False,
    debug: DebugOption = False,
) -> None:
    """Run an agent on PROMPT, streaming its answer to stdout (notes go to stderr).

    Before a tool that writes files or acts externally runs, tiller asks (showing the
    diff or the command); --yes allows such calls, --read-only denies them. Without a
    terminal to ask on (or with --json), they are denied unless --yes is given.
    """
    from tiller.cli.agent_setup import AgentSetup
    from tiller.cli.approval import approval_mode
    from tiller.cli.tool_loading import ShellChoices
    from tiller.cli.tool_threads import ToolThreads, leave

    err = Console(stderr=True)
    threads = ToolThreads()
    try:
        with errors_as_one_line(err, debug=debug):
            mode = approval_mode(yes=yes, read_only=read_only)
            text = _read_prompt(prompt)
            setup = AgentSetup.from_options(
                tools or [],
                system,
                max_turns,
                model_spec=model,
                base_url=base_url,
                api_key=api_key,
                builtin_names=builtin or [],
                workspace=workspace,
                shell=ShellChoices(unsandboxed_shell, shell_network, tuple(shell_env or ())),
            )
            code = _run_in_loop(
                _run(text, model, json_events, setup, err, mcp or [], mode), threads
            )
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # leaving: more Ctrl-C change nothing
        err.print("[yellow]interrupted[/]")
        leave(INTERRUPTED, threads, err)
        raise typer.Exit(INTERRUPTED) from None
    leave(code, threads, err)
    raise typer.Exit(code)


run.__doc__ = f"{run.__doc__}\n\n    {EXIT_STATUS_HELP}\n"


def _read_prompt(prompt: str) -> str:
    """The prompt, or stdin's whole text for `-` (a prompt too long for a command line)."""
    if prompt != "-":
        return prompt
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    return data.decode("utf-8", errors="replace").removesuffix("\n")


def _run_in_loop(main: Coroutine[Any, Any, int], threads: ToolThreads) -> int:
    """`asyncio.run(main)`, with synchronous tools in `threads`, not waiting for them on
    Ctrl-C (the first Ctrl-C cancels `main`; `KeyboardInterrupt` follows)."""
    runner = asyncio.Runner()
    runner.get_loop().set_default_executor(threads)
    try:
        return runner.run(main)
    finally:
        if not threads.busy():  # else the process leaves without joining them
            runner.close()


async def _run(
    prompt: str,
    model_spec: str | None,
    json_events: bool,
    setup: AgentSetup,
    err: Console,
    mcp_specs: list[str],
    mode: ApprovalMode,
) -> int:
    from tiller.cli.mcp_servers import mcp_servers

    async with mcp_servers(mcp_specs, setup, err):
        return await _run_agent(prompt, model_spec, json_events, setup, err, mode)


async def _run_agent(
    prompt: str,
    model_spec: str | None,
    json_events: bool,
    setup: AgentSetup,
    err: Console,
    mode: ApprovalMode,
) -> int:
    from tiller.cli.approval import TerminalAsk, ToolApproval
    from tiller.cli.rendering import TerminalRenderer
    from tiller.codec import dumps
    from tiller.events import AgentEvent

    renderer = None if json_events else TerminalRenderer(Console(), err)
    can_ask = renderer is not None and sys.stdin.isatty() and err.is_terminal
    ask = TerminalAsk(err, renderer.make_room) if renderer is not None and can_ask else None
    why = "tiller run --json asks no questions" if json_events else "stdin is not a terminal"
    setup.before_tool = ToolApproval(setup.tools, mode, ask, cannot_ask=why)
    agent = setup.build(model_spec)
    if renderer is None:

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
        agent.subscribe(renderer)
    result = await agent.run(prompt)
    if result.stop_reason == "error" and renderer is not None:
        print_error(err, result.error)
    return exit_status(result.stats)
