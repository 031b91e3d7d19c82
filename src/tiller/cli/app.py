"""The `tiller` command: `run`, `chat`, `models`, `solve`, `approvals`, `solves`, `db`,
`--version`."""

from __future__ import annotations

from typing import Annotated

import typer

from tiller._version import __version__
from tiller.cli.approvals_command import approvals
from tiller.cli.audit_command import audit
from tiller.cli.chat_command import chat
from tiller.cli.db_command import db
from tiller.cli.models_command import models
from tiller.cli.run_command import run
from tiller.cli.serve_command import serve
from tiller.cli.solve_command import solve
from tiller.cli.solves_command import solves

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


app.command()(run)
app.command()(chat)
app.command()(models)
app.command()(solve)
app.command()(serve)
app.add_typer(approvals)
app.add_typer(solves)
app.add_typer(db)
app.add_typer(audit)


def main() -> None:
    app()
