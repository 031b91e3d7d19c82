"""`tiller approvals`: what solves wait for, and the decisions that let them go on.

A decision is recorded once: deciding an approval that does not exist or was already
decided (or timed out) is a one-line error with exit status 2, and changes nothing.
A solve waiting in another process goes on within a second of the decision.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tiller.cli.db_command import DatabaseOption, DataDirOption
from tiller.cli.error_output import errors_as_one_line
from tiller.cli.options import DebugOption

if TYPE_CHECKING:
    from tiller.store import Approval, Store

T = TypeVar("T")

approvals = typer.Typer(
    name="approvals",
    help="Approvals that solves wait for: list them, show one, approve or reject it.",
    no_args_is_help=True,
)

IdArgument = Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")]
CommentOption = Annotated[
    str | None,
    typer.Option(
        "--comment",
        "-c",
        help="A comment kept with the decision (an answer to a "
        "question, a reason for a rejection).",
    ),
]


def with_store(
    database: str | None, data_dir: Any, debug: bool, work: Callable[[Store], Awaitable[T]]
) -> T:
    """`work` on the opened store; a `TillerError` is one line on stderr, exit status 2."""
    from tiller.cli.solve_command import open_store

    async def run() -> T:
        async with await open_store(database, data_dir) as store:
            return await work(store)

    with errors_as_one_line(Console(stderr=True), debug=debug):
        return asyncio.run(run())
    raise AssertionError("unreachable")  # pragma: no cover


@approvals.command("list")
def list_approvals(
    all_: Annotated[
        bool, typer.Option("--all", help="Also the decided and timed-out approvals.")
    ] = False,
    solve: Annotated[
        str | None, typer.Option("--solve", metavar="ID", help="Only this solve's approvals.")
    ] = None,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """The pending approvals, oldest first (with --all, every approval)."""

    async def work(store: Store) -> list[Approval]:
        return await store.approvals.list(status=None if all_ else "pending", solve_id=solve)

    found = with_store(database, data_dir, debug, work)
    out = Console(highlight=False, soft_wrap=True)
    if not found:
        out.print("No approvals." if all_ else "No pending approvals.")
        return
    table = Table(title_justify="left", box=None, pad_edge=False)
    for column in ("id", "status", "solve", "asks about", "asked at"):
        table.add_column(column, no_wrap=column != "asks about")
    for approval in found:
        table.add_row(
            approval.id,
            approval.status.value,
            (approval.solve_id or "")[:12],
            escape(describe(approval)),
            f"{approval.created_at:%Y-%m-%d %H:%M:%S}",
        )
    out.print(table)


@approvals.command("show")
def show_approval(
    approval_id: IdArgument,
    json_out: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """An approval: what it asks about, its context, and its decision once made."""

    async def work(store: Store) -> Approval:
        return await store.approvals.get(approval_id)

    approval = with_store(database, data_dir, debug, work)
    data = approval_data(approval)
    if json_out:
        print(json.dumps(data, ensure_ascii=False, default=str))
        return
    out = Console(highlight=False, soft_wrap=True)
    out.print(f"[bold]approval {approval.id}[/]: {approval.status.value}")
    out.print(f"asks about: {escape(describe(approval))}")
    out.print(f"solve: {approval.solve_id or '-'}  (kind {approval.kind}, event {approval.event})")
    out.print(f"asked at: {approval.created_at:%Y-%m-%d %H:%M:%S} UTC")
    if approval.due_at is not None:
        out.print(f"due at: {approval.due_at:%Y-%m-%d %H:%M:%S} UTC (then it times out)")
    if approval.decided:
        by = f" by {escape(approval.decided_by)}" if approval.decided_by else ""
        when = f" at {approval.decided_at:%Y-%m-%d %H:%M:%S} UTC" if approval.decided_at else ""
        out.print(f"decided: {approval.status.value}{by}{when}")
        if approval.comment:
            out.print(f"comment: {escape(approval.comment)}")
    out.print("context:")
    shown = json.dumps(approval.context, indent=2, ensure_ascii=False, default=str)
    out.print(escape(shown))
    if not approval.decided:
        out.print(f"decide it: tiller approvals approve|reject {approval.id} [--comment TEXT]")


@approvals.command("approve")
def approve(
    approval_id: IdArgument,
    comment: CommentOption = None,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """Approve a pending approval: the solve waiting for it goes on."""
    _decide(approval_id, True, comment, database, data_dir, debug)


@approvals.command("reject")
def reject(
    approval_id: IdArgument,
    comment: CommentOption = None,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """Reject a pending approval: the solve waiting for it stops that goal."""
    _decide(approval_id, False, comment, database, data_dir, debug)


def _decide(
    approval_id: str,
    approved: bool,
    comment: str | None,
    database: str | None,
    data_dir: Any,
    debug: bool,
) -> None:
    async def work(store: Store) -> Approval:
        return await store.approvals.decide(approval_id, approved, comment, None, decider())

    decided = with_store(database, data_dir, debug, work)
    out = Console(highlight=False, soft_wrap=True)
    what = escape(describe(decided))
    out.print(f"{decided.status.value.capitalize()} {decided.id} ({what}).")


def describe(approval: Approval) -> str:
    """What an approval asks about, in one line."""
    context = approval.context
    if approval.kind == "follow_up":
        data = context.get("data")
        questions = data.get("questions") if isinstance(data, dict) else data
        goal = context.get("goal")
        title = goal.get("title") if isinstance(goal, dict) else None
        asked = "; ".join(str(q) for q in questions) if isinstance(questions, list) else ""
        return f"goal {title!r} waits: {approval.event}" + (f": {asked}" if asked else "")
    reasons = context.get("reasons")
    step = context.get("step")
    if isinstance(reasons, list) and reasons:
        what = ""
        if isinstance(step, dict):
            what = f"step {step.get('index')} ({step.get('description')}): "
        return what + "; ".join(str(r) for r in reasons)
    checkpoint = context.get("checkpoint")
    name = checkpoint.get("name") if isinstance(checkpoint, dict) else None
    return f"checkpoint {approval.event}" + (f" {name!r}" if name else "")


def approval_data(approval: Approval) -> dict[str, Any]:
    return {
        "id": approval.id,
        "solve_id": approval.solve_id,
        "kind": approval.kind,
        "event": approval.event,
        "status": approval.status.value,
        "created_at": approval.created_at.isoformat(),
        "due_at": approval.due_at.isoformat() if approval.due_at else None,
        "decided_at": approval.decided_at.isoformat() if approval.decided_at else None,
        "decided_by": approval.decided_by,
        "comment": approval.comment,
        "context": approval.context,
    }


def decider() -> str:
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "someone"
    return f"{user} (tiller approvals)"
