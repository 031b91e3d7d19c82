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
    SystemOption,
    ToolsOption,
    WorkspaceOption,
)


def chat(
    model: ModelOption = None,
    tools: ToolsOption = None,
    builtin: BuiltinToolsOption = None,
    workspace: WorkspaceOption = None,
    system: SystemOption = None,
    max_turns: MaxTurnsOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    debug: DebugOption = False,
) -> None:
    """Chat with an agent: history kept, answers streamed, /help for commands."""
    from tiller.cli.agent_setup import AgentSetup
    from tiller.cli.chat import ChatSession
    from tiller.cli.chat_commands import NAMES
    from tiller.cli.line_input import LineReader

    err = Console(stderr=True)
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
        session = ChatSession(
            setup, model, LineReader(completions=NAMES), Console(), err, debug=debug
        )
    raise typer.Exit(session.interact())
