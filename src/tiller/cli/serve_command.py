"""`tiller serve`: the agent service on this machine, or behind a load balancer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tiller.cli.db_command import DatabaseOption, DataDirOption
from tiller.cli.error_output import USAGE_EXIT, print_error
from tiller.errors import TillerError

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="A TOML file of settings (also $TILLER_CONFIG); TILLER_* variables override it.",
    ),
]


def serve(
    host: Annotated[
        str | None, typer.Option(help="The address to listen on (default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="The port to listen on (default 8000).")] = None,
    data_dir: DataDirOption = None,
    database: DatabaseOption = None,
    config: ConfigOption = None,
) -> None:
    """Serve the agent API: sessions, runs with resumable streams, solves, approvals.

    With no settings it listens on 127.0.0.1:8000, keeps its data in a SQLite file in
    the data directory, answers with the embedded model, and prints the first admin's
    API key once. API docs: http://HOST:PORT/docs."""
    err = Console(stderr=True)
    try:
        from tiller.server.main import run_server
        from tiller.server.settings import load_settings
    except ImportError as exc:
        print_error(
            err,
            f"the service needs the package {exc.name!r}: install it with "
            "pip install 'tiller[server]'",
        )
        raise typer.Exit(USAGE_EXIT) from None
    try:
        settings = load_settings(config, host=host, port=port, data_dir=data_dir, database=database)
        code = run_server(settings, out=sys.stdout)
    except TillerError as exc:
        print_error(err, exc)
        raise typer.Exit(USAGE_EXIT) from None
    raise typer.Exit(code)
