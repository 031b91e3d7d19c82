"""`tiller solve OBJECTIVE`: the goal solver on the command line, and what `tiller solves
resume` shares with it (how a solve's tools and model are rebuilt, and its exit status).

The settings a solve was started with (model, tools, workspace, checkpoints, auto) are
kept with it in the store, so `tiller solves resume ID` goes on with the same ones.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markdown import Markdown

from tiller.cli.db_command import DatabaseOption, DataDirOption
from tiller.cli.error_output import USAGE_EXIT, errors_as_one_line
from tiller.cli.options import (
    ApiKeyOption,
    BaseUrlOption,
    DebugOption,
    ModelOption,
    ShellEnvOption,
    ShellNetworkOption,
    ToolsOption,
    UnsandboxedShellOption,
)
from tiller.errors import ConfigError
from tiller.events import Event, SolveStart

if TYPE_CHECKING:
    from tiller.models.base import Model
    from tiller.solve.final_status import FinalStatus
    from tiller.solve.solver import SolveOptions
    from tiller.store import Store
    from tiller.tools.base import Tool

DONE = 0
FAILED = 1
USAGE = USAGE_EXIT
STOPPED = 3
WAITING = 4
INTERRUPTED = 130
EXIT_BY_STATUS = {"done": DONE, "failed": FAILED, "stopped": STOPPED, "waiting": WAITING}

# Shown in `tiller solve --help` and `tiller solves resume --help`.
SOLVE_EXIT_HELP = (
    "Exit status: 0 done (every goal completed); "
    "1 failed (a goal failed and nothing more could run); "
    "2 bad usage (an option, model, tool, checkpoint file or database; nothing was solved); "
    "3 stopped (a bound was spent, a checkpoint was rejected or timed out, or no goal "
    "could run); "
    "4 waiting for people (a question or follow-up in `tiller approvals list`: decide it, "
    "then `tiller solves resume ID`); "
    "130 interrupted (Ctrl-C; `tiller solves resume ID` goes on)."
)

# The built-in tools a solve gets unless --tools names others: every file tool (shell
# acts outside the machine; name it to use it).
DEFAULT_TOOLS = ("read_file", "write_file", "edit_file", "list_files", "search")

SolveToolsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tools",
        help="Built-in tools by name, comma-separated (default: "
        + ",".join(DEFAULT_TOOLS)
        + "; shell on request). They work only inside --workspace.",
    ),
]
SolveWorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace",
        metavar="DIR",
        help="The directory the solve's built-in tools are confined to (default: the "
        "current directory).",
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print the final status as JSON (no questions asked: approvals wait for "
        "`tiller approvals`).",
    ),
]


@dataclass(slots=True)
class SolveSettings:
    """How the command line runs a solve; kept with it for `tiller solves resume`."""

    model: str
    workspace: str
    builtin: list[str] = field(default_factory=lambda: list(DEFAULT_TOOLS))
    tool_specs: list[str] = field(default_factory=list)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    auto: bool = False
    unsandboxed_shell: bool = False
    shell_network: bool = False
    shell_env: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_data(cls, data: object, *, model: str | None = None) -> SolveSettings:
        """The settings kept with a solve; a solve started elsewhere (the library) has
        none, and resumes with the defaults in the current directory."""
        from tiller.models.defaults import default_model_spec

        known = data if isinstance(data, dict) else {}
        fields = {k: v for k, v in known.items() if k in cls.__dataclass_fields__}
        fields.setdefault("model", default_model_spec())
        fields.setdefault("workspace", os.getcwd())
        if model:
            fields["model"] = model
        return cls(**fields)

    def tools(self) -> list[Tool]:
        from tiller.cli.tool_loading import ShellChoices, load_builtin_tools, load_tool

        workspace = Path(self.workspace)
        if not workspace.is_dir():
            raise ConfigError(f"--workspace {self.workspace}: no such directory")
        tools = [load_tool(spec) for spec in self.tool_specs]
        shell = ShellChoices(self.unsandboxed_shell, self.shell_network, tuple(self.shell_env))
        return tools + load_builtin_tools(
            self.builtin, self.workspace, taken={t.name for t in tools}, shell=shell
        )

    def options(self, bounds: Any = None) -> SolveOptions:
        from tiller.solve.checkpoints import checkpoints_from_data
        from tiller.solve.solver import SolveOptions

        checkpoints = checkpoints_from_data(
            {"checkpoints": self.checkpoints}, source="the solve's checkpoints"
        )
        options = SolveOptions(checkpoints=checkpoints, auto=self.auto, workspace=self.workspace)
        if bounds is not None:
            options.bounds = bounds
        return options


def solve(
    objective: Annotated[
        str, typer.Argument(help="What to achieve; '-' reads it from stdin.", show_default=False)
    ],
    auto: Annotated[
        bool,
        typer.Option(
            "--auto",
            help="Gather missing information by doing (safe, reversible steps) instead of "
            "asking people.",
        ),
    ] = False,
    checkpoints: Annotated[
        Path | None,
        typer.Option(
            "--checkpoints",
            metavar="FILE",
            help="Checkpoints from a TOML or YAML file (a list under `checkpoints`: event, "
            "mode, timeout, condition).",
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option("--max-cost", metavar="USD", min=0, help="Stop when this much is spent."),
    ] = None,
    max_steps: Annotated[
        int | None,
        typer.Option("--max-steps", min=1, help="Stop after this many steps."),
    ] = None,
    approval_timeout: Annotated[
        float,
        typer.Option(
            "--approval-timeout",
            metavar="SECONDS",
            min=1,
            help="How long an approval waits for a decision before it times out (and the "
            "solve stops, or waits for people).",
        ),
    ] = 3600.0,
    workspace: SolveWorkspaceOption = None,
    model: ModelOption = None,
    builtin: SolveToolsOption = None,
    tools: ToolsOption = None,
    unsandboxed_shell: UnsandboxedShellOption = False,
    shell_network: ShellNetworkOption = False,
    shell_env: ShellEnvOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    json_out: JsonOption = False,
    database: DatabaseOption = None,
    data_dir: DataDirOption = None,
    debug: DebugOption = False,
) -> None:
    """Solve OBJECTIVE with the goal solver, saved after every step."""
    from tiller.models.defaults import default_model_spec
    from tiller.solve.bounds import ResourceBounds
    from tiller.solve.checkpoints import load_checkpoints

    err = Console(stderr=True)
    with errors_as_one_line(err, debug=debug):
        text = _read_objective(objective)
        if model is not None and not model.strip():
            raise ConfigError(
                "--model is empty: give PROVIDER:NAME (see `tiller models`), "
                "or leave --model out for the default model"
            )
        settings = SolveSettings(
            model=model or default_model_spec(),
            workspace=str((workspace or Path.cwd()).resolve()),
            builtin=_names(builtin) if builtin is not None else list(DEFAULT_TOOLS),
            tool_specs=list(tools or []),
            checkpoints=[c.to_data() for c in load_checkpoints(checkpoints)]
            if checkpoints is not None
            else [],
            auto=auto,
            unsandboxed_shell=unsandboxed_shell,
            shell_network=shell_network,
            shell_env=list(shell_env or []),
        )
        bounds = ResourceBounds(
            max_cost_usd=max_cost, max_steps=max_steps, approval_timeout_s=approval_timeout
        )
        run = SolveRun(
            settings,
            json_out=json_out,
            database=database,
            data_dir=data_dir,
            model_options=_model_options(base_url, api_key),
            err=err,
        )
        code = run.main(run.start(text, bounds))
    raise typer.Exit(code)


# Shown in `tiller solve --help`, a paragraph per line (as Typer keeps them).
SOLVE_HELP = (
    "Goals come from the model, each gets a plan, each step runs with the built-in tools "
    "in --workspace, and each goal is reviewed against its acceptance criteria.",
    "A live goal tree shows each goal's status, the current step and the costs (on a "
    "terminal; elsewhere one line per event on stderr). When a checkpoint or a step needs "
    "approval, tiller asks on the terminal (approve, reject, or show the details, with a "
    "comment); when stdin is not a terminal, or with --json, it prints the approval's id "
    "and the command that decides it, and waits: `tiller approvals approve ID` from "
    "another shell lets it go on.",
    "The final status is printed as Markdown (JSON with --json). `tiller solves resume "
    "ID` goes on with a solve that stopped.",
)
solve.__doc__ = "\n\n    ".join([solve.__doc__ or "", *SOLVE_HELP, SOLVE_EXIT_HELP]) + "\n"


class SolveRun:
    """One `tiller solve` or `tiller solves resume`: the store, the solver, the view."""

    def __init__(
        self,
        settings: SolveSettings,
        *,
        json_out: bool,
        database: str | None,
        data_dir: Path | None,
        model_options: dict[str, Any],
        err: Console,
    ) -> None:
        self.settings = settings
        self.json_out = json_out
        self.database = database
        self.data_dir = data_dir
        self.model_options = model_options
        self.err = err
        self.solve_id: str | None = None
        self.view: Any = None

    def main(self, work: Coroutine[Any, Any, int]) -> int:
        """Run `work`; Ctrl-C stops the solve where it is (saved: resume goes on)."""
        from tiller.cli.tool_threads import ToolThreads, leave

        threads = ToolThreads()
        runner = asyncio.Runner()
        runner.get_loop().set_default_executor(threads)
        try:
            code = runner.run(work)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            again = f": `tiller solves resume {self.solve_id}` goes on" if self.solve_id else ""
            self.err.print(f"[yellow]interrupted[/]{again}", highlight=False)
            code = INTERRUPTED
        finally:
            if not threads.busy():
                runner.close()
        leave(code, threads, self.err)
        return code

    async def start(self, objective: str, bounds: Any) -> int:
        tools, model = self._tools_and_model()
        async with await open_store(self.database, self.data_dir) as store:
            solver = self._solver(store, tools, model, self.settings.options(bounds))
            settings = self.settings.to_data()
            return await self._drive(
                store, solver, lambda: solver.solve(objective, settings=settings)
            )

    async def resume(self, solve_id: str) -> int:
        tools, model = self._tools_and_model()
        self.solve_id = solve_id
        async with await open_store(self.database, self.data_dir) as store:
            await store.solves.load(solve_id)  # SolveNotFound before anything is built
            solver = self._solver(store, tools, model, self.settings.options())
            return await self._drive(store, solver, lambda: solver.resume(solve_id))

    def _tools_and_model(self) -> tuple[list[Tool], Model]:
        from tiller.models.registry import resolve_model

        tools = self.settings.tools()
        return tools, resolve_model(self.settings.model, **self.model_options)

    def _solver(self, store: Store, tools: list[Tool], model: Model, options: SolveOptions) -> Any:
        from tiller.solve.solver import Solver

        return Solver(model, store=store, tools=tools, options=options)

    async def _drive(self, store: Store, solver: Any, work: Any) -> int:
        from tiller.cli.solve_view import SolveView

        can_ask = not self.json_out and sys.stdin.isatty() and self.err.is_terminal
        self.view = SolveView(
            store,
            self.err,
            live=not self.json_out and self.err.is_terminal,
            ask=can_ask,
            store_options=self._store_options(),
        )
        solver.subscribe(self._note_id)
        solver.subscribe(self.view)
        async with self.view:
            final: FinalStatus = await work()
        self.show(final)
        return EXIT_BY_STATUS.get(final.status, FAILED)

    def _note_id(self, event: Event) -> None:
        if isinstance(event, SolveStart):
            self.solve_id = event.solve_id  # for the message if the person interrupts

    def show(self, final: FinalStatus) -> None:
        show_final(final, json_out=self.json_out)
        if final.status == "waiting" and not self.json_out:
            where = " ".join(shlex.quote(o) for o in self._store_options())
            where = f" {where}" if where else ""
            self.err.print(
                "[yellow]waiting for you:[/] answer with `tiller approvals approve ID"
                f"{where} --comment TEXT` (or reject), then `tiller solves resume "
                f"{final.solve_id}{where}`",
                highlight=False,
                soft_wrap=True,
            )

    def _store_options(self) -> list[str]:
        options = []
        if self.database is not None:
            options += ["--database", self.database]
        if self.data_dir is not None:
            options += ["--data-dir", str(self.data_dir)]
        return options


def show_final(final: FinalStatus, *, json_out: bool) -> None:
    """The final status on stdout: JSON, or Markdown (rendered on a terminal)."""
    if json_out:
        from tiller.codec import dumps

        sys.stdout.write(dumps(final.to_data()) + "\n")
        sys.stdout.flush()
        return
    out = Console()
    if out.is_terminal:
        out.print(Markdown(final.to_markdown()))
    else:
        sys.stdout.write(final.to_markdown())
        sys.stdout.flush()


async def open_store(database: str | None, data_dir: Path | None) -> Store:
    """The store at --database, or in --data-dir; a missing package is a usage error."""
    try:
        from tiller.store import Store
    except ImportError as exc:
        raise ConfigError(
            f"the store needs the package {exc.name!r}: install it with pip install 'tiller[solve]'"
        ) from None
    return await Store.open(database, data_dir=data_dir)


def settings_of(options: object) -> object:
    """The settings a solve was started with, from its record's options."""
    return options.get("settings") if isinstance(options, dict) else None


def _names(specs: Sequence[str]) -> list[str]:
    return [name.strip() for spec in specs for name in spec.split(",") if name.strip()]


def _model_options(base_url: str | None, api_key: str | None) -> dict[str, Any]:
    given = {"base_url": base_url, "api_key": api_key}
    return {k: v for k, v in given.items() if v is not None}


def _read_objective(objective: str) -> str:
    if objective == "-":
        data = sys.stdin.read()
        objective = data.strip()
    if not objective.strip():
        raise ConfigError("the objective is empty: say what the solve should achieve")
    return objective
