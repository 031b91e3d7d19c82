"""Solves as durable workflows: the goal solver, served.

A solve is created in the store with its owner and objective, then executed by a DBOS
workflow that resumes it (`Solver.resume` starts one that has no state yet), so a solve
goes on after a crash like a run does: from its last saved step, never running a
finished step again. A solve that ends waiting for people is taken up again when one of
its approvals is decided. Its tools are the server's allowed built-in tools, in a
workspace of its own; its model is the one it was started with.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

from dbos import DBOS, SetWorkflowID

from tiller.server.session_agents import SessionAgents
from tiller.solve.bounds import ResourceBounds
from tiller.solve.options import SolveOptions
from tiller.solve.solver import Solver
from tiller.store import Store
from tiller.store.errors import SolveBusyError, SolveNotFound
from tiller.tools.builtin import builtin_tools

log = logging.getLogger(__name__)


class SolveEngine:
    def __init__(
        self, store: Store, agents: SessionAgents, tools: tuple[str, ...], workspaces: Path
    ) -> None:
        self.store = store
        self.agents = agents
        self.tools = tools
        self.workspaces = workspaces
        self.executing: dict[str, Solver] = {}

    def start(self) -> None:
        global _engine
        _engine = self

    def stop(self) -> None:
        global _engine
        _engine = None

    async def submit(self, solve_id: str) -> None:
        """Execute (or go on with) the stored solve, durably."""
        with SetWorkflowID(f"solve-{solve_id}-{uuid.uuid4().hex[:8]}"):
            await DBOS.start_workflow_async(solve_workflow, solve_id)

    def cancel(self, solve_id: str) -> bool:
        solver = self.executing.get(solve_id)
        if solver is None:
            return False
        solver.cancel.cancel("cancelled by the user")
        return True

    async def execute(self, solve_id: str) -> str:
        try:
            record = await self.store.solves.load(solve_id)
        except SolveNotFound:
            return "gone"
        settings = record.options.get("settings") or {}
        folder = self.workspaces / solve_id
        folder.mkdir(parents=True, exist_ok=True)
        bounds = ResourceBounds.from_data(record.options.get("bounds") or {})
        solver = Solver(
            self.agents.model(str(settings.get("model"))),
            store=self.store,
            tools=builtin_tools(self.tools, folder),
            options=SolveOptions(bounds=bounds, auto=bool(settings.get("auto"))),
        )
        self.executing[solve_id] = solver
        try:
            final = await solver.resume(solve_id)
        except SolveBusyError:
            log.info("solve %s is executing elsewhere", solve_id)
            return "busy"
        finally:
            self.executing.pop(solve_id, None)
        return final.status


_engine: SolveEngine | None = None


@DBOS.workflow(name="tiller_solve")
async def solve_workflow(solve_id: str) -> str:
    """A solve, executed (or gone on with) by this process's engine."""
    if _engine is None:
        raise RuntimeError("no solve engine is started in this process")
    return await _engine.execute(solve_id)
