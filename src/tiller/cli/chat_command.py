"""`tiller chat`: an interactive session in the terminal."""

from __future__ import annotations

import typer
from rich.console import Console

from tiller.cli.error_output import errors_as_one_line
from tiller.cli.options import (
    ApiKeyOption,
    BaseUrlOption,
    BuiltinToolsOption,
    DebugOption,
    MaxTurnsOption,
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


def chat(
    model: ModelOption = None,
    tools: ToolsOption = None,
    builtin: BuiltinToolsOption = None,
    workspace: WorkspaceOption = None,
    unsandboxed_shell: UnsandboxedShellOption = False,
    shell_network: ShellNetworkOption = False,
    shell_env: ShellEnvOption = None,
    system: SystemOption = None,
    max_turns: MaxTurnsOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    yes: YesOption = False,
    read_only: ReadOnlyOption = False,
    debug: DebugOption = False,
) -> None:
    """Chat with an agent: history kept, answers streamed, /help for commands.

    Before a tool that writes files or acts externally runs, tiller asks (showing the
    diff or the command); --yes allows such calls, --read-only denies them. When input
    is not a terminal, they are denied unless --yes is given.
    """
    from tiller.cli.agent_setup import AgentSetup
    from tiller.cli.approval import approval_mode
    from tiller.cli.chat_session import ChatSession
    from tiller.cli.line_input import LineReader
    from tiller.cli.slash_commands import NAMES
    from tiller.cli.tool_loading import ShellChoices
    from tiller.cli.tool_threads import leave

    err = Console(stderr=True)
    with errors_as_one_line(err, debug=debug):
        mode = approval_mode(yes=yes, read_only=read_only)
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
        session = ChatSession(
            setup, model, LineReader(completions=NAMES), Console(), err, debug=debug, approval=mode
        )
    code = session.interact()
    leave(code, session.tool_threads, err)
    raise typer.Exit(code)
