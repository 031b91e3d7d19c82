"""The goal solver: from objectives to a goal tree, and goal by goal to a final status.

    solver = Solver("local:smollm2", store=await Store.open(), tools=tools)
    final = await solver.solve("Write the quarterly report and send it to Ann")
    final = await solver.resume(final.solve_id)   # after an approval, or a crash

The loop that works through the goals is `tiller.solve.solving_loop`. The state is
saved after every step, and every step is written down before it runs; a resumed solve
never runs a finished step again, re-runs a read-only step that was interrupted, and
asks a person about an interrupted step with effects (`tiller.solve.resumption`). One
process at a time runs a solve (a lease in the store).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tiller.cancellation import CancelToken
from tiller.errors import TillerError
from tiller.events import Event, SolveStart
from tiller.loop.options import Governance
from tiller.models.base import Model
from tiller.models.registry import resolve_model
from tiller.solve.final_status import FinalStatus
from tiller.solve.framework import Mode
from tiller.solve.options import SolveOptions
from tiller.solve.solving_loop import SolvingLoop
from tiller.solve.state import SolveState
from tiller.store import Store
from tiller.store.documents import JSONObject
from tiller.tools.base import Tool
from tiller.tools.function_tool import as_tool
from tiller.tools.rollback import RollbackJournal

__all__ = ["SolveOptions", "SolveStateError", "Solver"]

Listener = Callable[[Event], None]


class SolveStateError(TillerError):
    """A saved solve that cannot be resumed."""


class Solver:
    """Solves objectives with `model` and `tools`, saving every step to `store`.

    `governance` applies to every tool call of the solve (a rollback journal is added
    when it has none); `options` sets the bounds, checkpoints, mode and rules."""

    def __init__(
        self,
        model: Model | str,
        *,
        store: Store,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        governance: Governance | None = None,
        options: SolveOptions | None = None,
    ) -> None:
        self.model = resolve_model(model)
        self.store = store
        self.tools = [as_tool(t) for t in tools]
        governance = governance or Governance()
        # Every solve keeps a rollback journal, so a failed step can be undone.
        if governance.rollbacks is None:
            governance = replace(governance, rollbacks=RollbackJournal())
        self.governance = governance
        self.options = options or SolveOptions()
        self._listeners: list[Listener] = []
        self.cancel = CancelToken()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event of every solve (and of the runs inside)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def solve(
        self, objectives: str | Sequence[str], *, settings: JSONObject | None = None
    ) -> FinalStatus:
        """Solve `objectives` from the start. `settings` (JSON) are kept with the solve's
        record, in `options["settings"]`, for whoever resumes it: the model and tools it
        was started with, say. The new solve's id comes first, in a `SolveStart` event."""
        listed = [objectives] if isinstance(objectives, str) else list(objectives)
        options: JSONObject = {"objectives": listed, "bounds": self.options.bounds.to_data()}
        if settings is not None:
            options["settings"] = settings
        solve_id = await self.store.solves.create("; ".join(listed), options)
        self.emit(SolveStart(solve_id=solve_id, objectives=listed))
        state = SolveState(listed, self.options.mode or Mode.DIRECT_TOOLS, self.options.bounds)
        async with self.store.leases.hold(solve_id) as lease:
            run = SolvingLoop(self, solve_id, state, version=0, lease=lease)
            return await run.start()

    async def resume(self, solve_id: str) -> FinalStatus:
        """Go on with a saved solve (another process holding it: `SolveBusyError`). A solve
        that stopped before its goal tree was made (or was only created, as the service
        does) starts from its objectives."""
        async with self.store.leases.hold(solve_id) as lease:
            record = await self.store.solves.load(solve_id)
            if record.state is None:
                objectives = record.options.get("objectives")
                if not isinstance(objectives, list) or not objectives:
                    raise SolveStateError(
                        f"solve {solve_id!r} has neither a saved state nor objectives to "
                        "start from; start it again"
                    )
                listed = [str(o) for o in objectives]
                self.emit(SolveStart(solve_id=solve_id, objectives=listed))
                mode = self.options.mode or Mode.DIRECT_TOOLS
                fresh = SolveState(listed, mode, self.options.bounds)
                return await SolvingLoop(self, solve_id, fresh, version=0, lease=lease).start()
            state = SolveState.from_data(record.state)
            self.emit(SolveStart(solve_id=solve_id, objectives=state.objectives, resumed=True))
            run = SolvingLoop(self, solve_id, state, version=record.version, lease=lease)
            return await run.resume()

    def emit(self, event: Event) -> None:
        """Send `event` to every listener (the solving loop sends its events here)."""
        for listener in tuple(self._listeners):
            listener(event)
