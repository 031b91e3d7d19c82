"""Command-line options shared by `tiller run` and `tiller chat`."""

from __future__ import annotations

from typing import Annotated

import typer

ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help="Model as PROVIDER:NAME (default: $TILLER_MODEL, else by API key, else "
        "local:smollm2; see `tiller models`).",
    ),
]
ToolsOption = Annotated[
    list[str] | None,
    typer.Option("--tool", "-t", help="A tool as MODULE:FUNCTION (repeatable)."),
]
SystemOption = Annotated[str | None, typer.Option("--system", help="System prompt.")]
MaxTurnsOption = Annotated[
    int | None, typer.Option("--max-turns", min=1, help="Stop a run after this many model turns.")
]
DebugOption = Annotated[bool, typer.Option("--debug", help="Show tracebacks.")]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="Server URL for the model's provider (an OpenAI-compatible server, a proxy, "
        "a test server). Applies to models of that provider, also after /model.",
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        help="API key for the model's provider (default: its environment variable, "
        "which keeps the key out of the process list).",
    ),
]
MCPOption = Annotated[
    list[str] | None,
    typer.Option(
        "--mcp",
        help="An MCP server whose tools the agent may use: a command line to run "
        "('python server.py') or a Streamable HTTP URL (repeatable).",
    ),
]
BuiltinToolsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tools",
        help="Built-in tools by name, comma-separated: read_file, write_file, edit_file, "
        "list_files, search, shell. They work only inside --workspace; shell runs its "
        "commands in a bubblewrap sandbox (see --unsandboxed-shell).",
    ),
]
WorkspaceOption = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        help="The directory built-in tools are confined to (default: the current directory).",
    ),
]
YesOption = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Allow every tool call that writes files or acts externally, without asking.",
    ),
]
ReadOnlyOption = Annotated[
    bool,
    typer.Option(
        "--read-only",
        help="Deny every tool call that writes files or acts externally, without asking "
        "(the model is told why).",
    ),
]
UnsandboxedShellOption = Annotated[
    bool,
    typer.Option(
        "--unsandboxed-shell",
        help="Run shell commands without the sandbox: they can read and write every file "
        "you can, reach the network, and see your processes and environment.",
    ),
]
ShellNetworkOption = Annotated[
    bool,
    typer.Option("--shell-network", help="Let sandboxed shell commands reach the network."),
]
ShellEnvOption = Annotated[
    list[str] | None,
    typer.Option(
        "--shell-env",
        help="An environment variable shell commands may see besides PATH, HOME, locale "
        "and TERM (repeatable).",
    ),
]
