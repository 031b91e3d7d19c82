"""`tiller models`: which models can run here, and which one is the default."""

from __future__ import annotations

import os

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tiller.models.defaults import available_models, choose_default_model


def models() -> None:
    """List a model of every provider, whether it can run here (key set? package
    installed? server up?) and why, and the default."""
    out = Console()
    default = choose_default_model(os.environ)
    table = Table(title="Models", title_justify="left")
    table.add_column("model", no_wrap=True)
    table.add_column("available")
    table.add_column("why")
    listed = available_models(os.environ)
    for m in listed:
        name = escape(m.spec) + (" [bold](default)[/]" if m.spec == default.spec else "")
        mark = "[green]yes[/]" if m.available else "[red]no[/]"
        table.add_row(name, mark, escape(m.reason))
    out.print(table)
    out.print(
        f"Default model: [bold]{escape(default.spec)}[/] ({escape(default.reason)}). "
        "Choose another with --model PROVIDER:NAME or TILLER_MODEL.",
        highlight=False,
    )
    for m in listed:
        if m.spec == default.spec and not m.available:
            out.print(f"[yellow]The default model cannot run here:[/] {escape(m.reason)}.")
