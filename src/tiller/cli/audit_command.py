"""`tiller audit verify`: check that the service's audit trail was not tampered with."""

from __future__ import annotations

import asyncio

import typer
from rich.console import Console

from tiller.cli.db_command import DatabaseOption, DataDirOption
from tiller.cli.error_output import USAGE_EXIT, print_error
from tiller.errors import TillerError

audit = typer.Typer(name="audit", help="The service's audit trail.", no_args_is_help=True)

BROKEN_EXIT = 1


@audit.command(
    help="Walk the audit trail's chain of hashes from its first record. Exit status 0 when "
    "every record holds; 1 naming the first record that was changed, removed or moved."
)
def verify(database: DatabaseOption = None, data_dir: DataDirOption = None) -> None:
    err = Console(stderr=True)
    try:
        from tiller.store import Store
    except ImportError as exc:
        print_error(err, f"the store needs the package {exc.name!r}: pip install 'tiller[store]'")
        raise typer.Exit(USAGE_EXIT) from None

    async def run() -> tuple[bool, int, int | None, str | None]:
        async with await Store.open(database, data_dir=data_dir) as store:
            result = await store.audit.verify()
        return result.ok, result.records, result.broken_at, result.problem

    try:
        ok, records, broken_at, problem = asyncio.run(run())
    except TillerError as exc:
        print_error(err, exc)
        raise typer.Exit(USAGE_EXIT) from None
    out = Console(highlight=False, soft_wrap=True)
    if ok:
        out.print(f"The audit trail holds: {records} record(s), each chained to the one before.")
        return
    print_error(err, f"the audit trail is broken at record {broken_at}: {problem}")
    raise typer.Exit(BROKEN_EXIT)
