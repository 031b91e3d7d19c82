"""The step journal: each step of a solve written before it runs and after it finished.

`step_started` is written (committed) before the step's tool runs, `step_finished`
after, with its outcome. A step started but never finished was running when its process
stopped: `interrupted_steps` lists them for a resume, with the tool's effect, so a
read-only step can be run again and one with effects is never re-run blindly. A step
that finished is never started again (`StepJournalError`): its outcome is in the journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tiller.store.database import Database
from tiller.store.documents import JSONObject, checked
from tiller.store.errors import SolveNotFound, StepJournalError
from tiller.store.tables import solves, step_journal
from tiller.tools.effects import ToolEffect


@dataclass(frozen=True, slots=True)
class StepEntry:
    """A step as the journal has it. `finished_at` is None while it runs (or if it was
    interrupted); `attempts` counts its starts."""

    solve_id: str
    step_key: str
    tool: str
    effect: ToolEffect
    arguments: JSONObject
    attempts: int
    started_at: datetime
    finished_at: datetime | None
    outcome: Any

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


def _entry(row: Any) -> StepEntry:
    fields = {name: value for name, value in row._mapping.items() if name != "id"}
    return StepEntry(**{**fields, "effect": ToolEffect(row.effect)})


class StepJournal:
    """The step journal of one store (`store.steps`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def step_started(
        self,
        solve_id: str,
        step_key: str,
        tool: str,
        effect: ToolEffect | str,
        arguments: JSONObject,
    ) -> StepEntry:
        """Record that the step `step_key` of the solve is about to run; call it (and
        let it return) before running the step. Starting an interrupted step again counts
        another attempt; starting a finished one raises `StepJournalError`."""
        effect = ToolEffect(effect)
        checked(arguments, f"the arguments of step {step_key!r}")
        now = self._db.clock()
        key = (step_journal.c.solve_id == solve_id, step_journal.c.step_key == step_key)
        values = {"tool": tool, "effect": effect.value, "arguments": arguments, "started_at": now}
        try:
            async with self._db.write() as conn:
                finished = (
                    await conn.execute(sa.select(step_journal.c.finished_at).where(*key))
                ).one_or_none()
                written: sa.Insert | sa.Update
                if finished is None:
                    written = step_journal.insert().values(
                        solve_id=solve_id, step_key=step_key, attempts=1, **values
                    )
                elif finished.finished_at is None:
                    written = (
                        step_journal.update()
                        .where(*key)
                        .values(attempts=step_journal.c.attempts + 1, **values)
                    )
                else:
                    raise StepJournalError(
                        f"step {step_key!r} of solve {solve_id!r} already finished at "
                        f"{finished.finished_at:%Y-%m-%d %H:%M:%S} UTC; it must not run again "
                        "(its outcome is in the journal)"
                    )
                row = (await conn.execute(written.returning(*step_journal.c))).one()
        except IntegrityError:  # no such solve, or another process started the step too
            async with self._db.read() as conn:
                if await conn.scalar(sa.select(solves.c.id).where(solves.c.id == solve_id)) is None:
                    raise SolveNotFound(solve_id) from None
            raise StepJournalError(
                f"step {step_key!r} of solve {solve_id!r} was started by another process at "
                "the same moment; only one process may run a solve (claim its lease first)"
            ) from None
        return _entry(row)

    async def step_finished(self, solve_id: str, step_key: str, outcome: Any) -> StepEntry:
        """Record the outcome (a JSON value) of a started step."""
        checked(outcome, f"the outcome of step {step_key!r}", object_only=False)
        key = (step_journal.c.solve_id == solve_id, step_journal.c.step_key == step_key)
        async with self._db.write() as conn:
            done = (
                await conn.execute(
                    step_journal.update()
                    .where(*key, step_journal.c.finished_at.is_(None))
                    .values(finished_at=self._db.clock(), outcome=outcome)
                    .returning(*step_journal.c)
                )
            ).one_or_none()
            if done is not None:
                return _entry(done)
            finished_at = await conn.scalar(sa.select(step_journal.c.finished_at).where(*key))
        if finished_at is None:
            raise StepJournalError(
                f"step {step_key!r} of solve {solve_id!r} was never started: record "
                "step_started before running a step"
            )
        raise StepJournalError(
            f"step {step_key!r} of solve {solve_id!r} already finished at "
            f"{finished_at:%Y-%m-%d %H:%M:%S} UTC; its first outcome is kept"
        )

    async def get(self, solve_id: str, step_key: str) -> StepEntry | None:
        """The journal entry of one step, or None if it never started."""
        async with self._db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(step_journal).where(
                        step_journal.c.solve_id == solve_id, step_journal.c.step_key == step_key
                    )
                )
            ).one_or_none()
        return None if row is None else _entry(row)

    async def steps(self, solve_id: str) -> list[StepEntry]:
        """Every step of the solve, in the order they first started."""
        return await self._select(solve_id)

    async def interrupted_steps(self, solve_id: str) -> list[StepEntry]:
        """The steps that started and never finished: what a resume must deal with."""
        return await self._select(solve_id, step_journal.c.finished_at.is_(None))

    async def _select(self, solve_id: str, *where: sa.ColumnElement[bool]) -> list[StepEntry]:
        query = (
            sa.select(step_journal)
            .where(step_journal.c.solve_id == solve_id, *where)
            .order_by(step_journal.c.id)
        )
        async with self._db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [_entry(row) for row in rows]
