"""`tiller solves`: the solves in the store, one solve's status, and resuming one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tiller.cli.approvals_command import with_store
from tiller.cli.db_command import DatabaseOption, DataDirOption
from tiller.cli.error_output import errors_as_one_line
from tiller.cli.options import ApiKeyOption, BaseUrlOption, DebugOption, ModelOption
from tiller.cli.solve_command import (
    SOLVE_EXIT_HELP,
    JsonOption,
    SolveRun,
    SolveSettings,
    settings_of,
    show_final,
)
from tiller.errors import ConfigError

if TYPE_CHECKING:
    from tiller.solve.final_status import FinalStatus
    from tiller.store import SolveRecord, SolveSummary, Store

solves = typer.Typer(
    name="solves",
    help="Solves saved in the store: list them, show one's status, resume one.",
    no_args_is_help=True,
)

IdArgument = Annotated[str, typer.Argument(metavar="ID", help="The solve's id.")]


@solves.command("list")
def list_solves(
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            help="Only solves with this status (running, waiting, done, failed, stopped).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many.")] = 20,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """The solves, newest first."""

    async def work(store: Store) -> list[SolveSummary]:
        return await store.solves.list(status=status, limit=limit)

    found = with_store(database, data_dir, debug, work)
    out = Console(highlight=False, soft_wrap=True)
    if not found:
        out.print("No solves.")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("id", "status", "updated", "objective"):
        table.add_column(column, no_wrap=column != "objective")
    for summary in found:
        table.add_row(
            summary.id,
            summary.status,
            f"{summary.updated_at:%Y-%m-%d %H:%M:%S}",
            escape(summary.objective),
        )
    out.print(table)


@solves.command("show")
def show_solve(
    solve_id: IdArgument,
    json_out: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """A solve's status as it was last saved: its goals with their evidence, what it
    used, and what waits for people (Markdown, or JSON with --json)."""

    async def work(store: Store) -> SolveRecord:
        return await store.solves.load(solve_id)

    record = with_store(database, data_dir, debug, work)
    with errors_as_one_line(Console(stderr=True), debug=debug):
        show_final(status_of(record), json_out=json_out)


@solves.command("resume")
def resume(
    solve_id: IdArgument,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    json_out: JsonOption = False,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """Go on with a saved solve."""
    err = Console(stderr=True)

    async def work(store: Store) -> SolveRecord:
        return await store.solves.load(solve_id)

    record = with_store(database, data_dir, debug, work)
    with errors_as_one_line(err, debug=debug):
        settings = SolveSettings.from_data(settings_of(record.options), model=model)
        given = {"base_url": base_url, "api_key": api_key}
        run = SolveRun(
            settings,
            json_out=json_out,
            database=database,
            data_dir=data_dir,
            model_options={k: v for k, v in given.items() if v is not None},
            err=err,
        )
        code = run.main(run.resume(solve_id))
    raise typer.Exit(code)


RESUME_HELP = (
    "It goes on with the model, tools, workspace and checkpoints it was started with "
    "(--model picks another model): after its follow-ups were answered, an approval "
    "given while nothing ran, a crash or Ctrl-C. No finished step runs again; a step "
    "with effects that was interrupted is asked about first."
)
resume.__doc__ = "\n\n    ".join([resume.__doc__ or "", RESUME_HELP, SOLVE_EXIT_HELP]) + "\n"


def status_of(record: SolveRecord) -> FinalStatus:
    """The final status of a saved solve (one saved before its goal tree: no goals)."""
    from tiller.solve.final_status import FinalStatus, final_status
    from tiller.solve.state import SolveState

    if record.state is None:
        empty: dict[str, Any] = {}
        return FinalStatus(record.id, record.status, None, [], empty, [], [], {})
    try:
        state = SolveState.from_data(record.state)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"solve {record.id!r} has a saved state this Tiller cannot read: {exc}"
        ) from None
    return final_status(record.id, state)
