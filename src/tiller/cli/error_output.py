"""Errors a person can fix, shown as one line (the traceback only with `--debug`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from tiller.errors import TillerError

# Exit status for errors in what the user asked for (bad model, tool, file, ...).
USAGE_EXIT = 2


def print_error(err: Console, message: object) -> None:
    """`error: MESSAGE` on one line."""
    text = " ".join(str(message).split())
    err.print(f"[red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)


@contextmanager
def errors_as_one_line(err: Console, *, debug: bool) -> Iterator[None]:
    """Turn a `TillerError` into one line on stderr and exit status 2 (re-raise if `debug`)."""
    try:
        yield
    except TillerError as exc:
        if debug:
            raise
        print_error(err, exc)
        raise typer.Exit(USAGE_EXIT) from None
