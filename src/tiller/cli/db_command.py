"""`tiller db upgrade`: bring the store's database to the schema this version uses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from tiller.cli.error_output import USAGE_EXIT, print_error
from tiller.errors import TillerError

db = typer.Typer(
    name="db",
    help="The database of solves and approvals (a SQLite file, or PostgreSQL by URL).",
    no_args_is_help=True,
)

DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        metavar="URL",
        help="sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE "
        "(default: tiller.db in the data directory).",
    ),
]
DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        metavar="DIR",
        help="Where the default database file lives "
        "(default: $XDG_DATA_HOME/tiller or ~/.local/share/tiller).",
    ),
]


UPGRADE_HELP = (
    "Upgrade the database's schema to the one this version of Tiller uses (a new database "
    "gets it). Another program's database, a damaged file, or a newer Tiller's schema are "
    "refused and left untouched."
)


@db.command(help=UPGRADE_HELP)
def upgrade(database: DatabaseOption = None, data_dir: DataDirOption = None) -> None:
    err = Console(stderr=True)
    try:
        from tiller.store import Store
    except ImportError as exc:
        print_error(
            err,
            f"the store needs the package {exc.name!r}: install it with "
            "pip install 'tiller[store]'",
        )
        raise typer.Exit(USAGE_EXIT) from None

    async def run() -> tuple[str, str | None, str]:
        async with await Store.open(database, data_dir=data_dir, upgrade=True) as store:
            return store.url, store.revision_before, store.revision

    try:
        where, before, now = asyncio.run(run())
    except TillerError as exc:
        print_error(err, exc)
        raise typer.Exit(USAGE_EXIT) from None
    out = Console(highlight=False, soft_wrap=True)
    if before is None:
        out.print(f"Created the database {escape(where)} at schema revision {now}.")
    elif before != now:
        out.print(f"Upgraded the database {escape(where)} from schema revision {before} to {now}.")
    else:
        out.print(f"The database {escape(where)} is at schema revision {now}: nothing to do.")


KEYS_ENV = "TILLER_ENCRYPTION_KEYS"


@db.command(
    help="Seal every sealed document of sensitive sessions again with the first of the "
    f"encryption keys (${KEYS_ENV}, a JSON list, newest first). To rotate a key: put the "
    "new key in front of the old one, run this, then drop the old key."
)
def reseal(database: DatabaseOption = None, data_dir: DataDirOption = None) -> None:
    import json
    import os

    err = Console(stderr=True)
    try:
        keys = json.loads(os.environ.get(KEYS_ENV, "[]"))
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) or not keys:
            raise ValueError
    except ValueError:
        print_error(err, f"${KEYS_ENV} must be a JSON list of Fernet keys, the new one first")
        raise typer.Exit(USAGE_EXIT) from None
    from tiller.store import Store

    async def run() -> int:
        async with await Store.open(database, data_dir=data_dir, keys=keys) as store:
            return await store.reseal()

    try:
        count = asyncio.run(run())
    except TillerError as exc:
        print_error(err, exc)
        raise typer.Exit(USAGE_EXIT) from None
    Console(highlight=False).print(f"Sealed {count} document(s) again with the first key.")
