"""The tool calls of the service's runs (`store.run_tool_calls`), written before each
runs and again when it finished.

After a crash, a run goes on from its saved history. A tool call of its last reply
that has no result may have run: the journal says whether it finished (its result is
kept), was running (started, never finished: with effects, it is not run again
blindly), or never started.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tiller.store.database import Database
from tiller.store.documents import JSONObject, checked
from tiller.store.sealing import Sealer
from tiller.store.tables import run_tool_calls
from tiller.tools.effects import ToolEffect


@dataclass(frozen=True, slots=True)
class ToolCallEntry:
    run_id: str
    call_id: str
    tool: str
    effect: ToolEffect
    arguments: JSONObject
    started_at: datetime
    finished_at: datetime | None
    result: JSONObject | None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class RunToolCalls:
    """The run tool call journal of one store; a sensitive session's arguments and
    results are sealed at rest (`sealed=True`)."""

    def __init__(self, db: Database, sealer: Sealer | None = None) -> None:
        self._db = db
        self._sealer = sealer or Sealer()

    def _entry(self, row: Any) -> ToolCallEntry:
        fields = {**row._mapping, "effect": ToolEffect(row.effect)}
        fields["arguments"] = self._sealer.open(row.arguments)
        fields["result"] = self._sealer.open(row.result)
        return ToolCallEntry(**fields)

    async def started(
        self,
        run_id: str,
        call_id: str,
        tool: str,
        effect: ToolEffect,
        arguments: JSONObject,
        *,
        sealed: bool = False,
    ) -> ToolCallEntry | None:
        """Record that the call is about to run; call it (and let it return) first.
        None when recorded; the earlier entry when the call was recorded before (the
        run was restarted: the call finished, or was running when the process died)."""
        checked(arguments, f"the arguments of tool call {call_id!r}")
        try:
            async with self._db.write() as conn:
                await conn.execute(
                    run_tool_calls.insert().values(
                        run_id=run_id,
                        call_id=call_id,
                        tool=tool,
                        effect=ToolEffect(effect).value,
                        arguments=self._sealer.seal(arguments) if sealed else arguments,
                        started_at=self._db.clock(),
                    )
                )
        except IntegrityError:
            earlier = await self.get(run_id, call_id)
            if earlier is None:  # the run is gone
                raise
            return earlier
        return None

    async def finished(
        self, run_id: str, call_id: str, result: JSONObject, *, sealed: bool = False
    ) -> None:
        """Record the call's result (a tool result message as JSON)."""
        checked(result, f"the result of tool call {call_id!r}")
        if sealed:
            result = self._sealer.seal(result)
        async with self._db.write() as conn:
            await conn.execute(
                run_tool_calls.update()
                .where(
                    run_tool_calls.c.run_id == run_id,
                    run_tool_calls.c.call_id == call_id,
                    run_tool_calls.c.finished_at.is_(None),
                )
                .values(finished_at=self._db.clock(), result=result)
            )

    async def get(self, run_id: str, call_id: str) -> ToolCallEntry | None:
        async with self._db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(run_tool_calls).where(
                        run_tool_calls.c.run_id == run_id, run_tool_calls.c.call_id == call_id
                    )
                )
            ).one_or_none()
        return None if row is None else self._entry(row)

    async def of_run(self, run_id: str) -> builtins.list[ToolCallEntry]:
        async with self._db.read() as conn:
            rows = (
                await conn.execute(
                    sa.select(run_tool_calls)
                    .where(run_tool_calls.c.run_id == run_id)
                    .order_by(run_tool_calls.c.started_at)
                )
            ).all()
        return [self._entry(row) for row in rows]
