"""The events of the service's runs (`store.run_events`), numbered from 1 per run.

Events are written before anyone is sent them, so a client that reconnects asks for
the ones after the last number it saw and gets exactly those it missed.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tiller.store.database import Database, insert_rows
from tiller.store.sealing import Sealer
from tiller.store.tables import run_events

IDS_PER_QUERY = 500  # run ids named in one statement (SQLite limits its parameters)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    run_id: str
    seq: int
    type: str
    data: dict[str, Any]
    created_at: datetime


class RunEvents:
    """The run events of one store."""

    def __init__(self, db: Database, sealer: Sealer | None = None) -> None:
        self._db = db
        self._sealer = sealer or Sealer()

    async def append(
        self,
        run_id: str,
        events: Sequence[tuple[int, str, dict[str, Any]]],
        *,
        sealed: bool = False,
    ) -> None:
        """Store `(seq, type, data)` events of the run in one transaction (their data
        sealed, for a sensitive session). A number taken twice is an `IntegrityError`:
        the run's writer numbers them, one at a time."""
        await self.append_many([(run_id, events, sealed)])

    async def append_many(
        self, batches: Sequence[tuple[str, Sequence[tuple[int, str, dict[str, Any]]], bool]]
    ) -> None:
        """The events of several runs, `(run_id, events, sealed)` each, in one statement:
        what the writer of a process stores for every run it executes at once."""
        if any(events for _, events, _ in batches):
            await self._db.write_batch(self.appending(batches))

    def appending(
        self, batches: Sequence[tuple[str, Sequence[tuple[int, str, dict[str, Any]]], bool]]
    ) -> Callable[[Connection], None]:
        """`append_many` as work for `Database.write_batch`, to share a transaction."""
        now = self._db.clock()
        rows = [
            {
                "run_id": run_id,
                "seq": seq,
                "type": kind,
                "data": self._sealer.seal(data) if sealed else data,
                "created_at": now,
            }
            for run_id, events, sealed in batches
            for seq, kind, data in events
        ]

        def append(conn: Connection) -> None:
            insert_rows(conn, run_events, rows)

        return append

    async def after(
        self, run_id: str, seq: int = 0, *, limit: int = 1000
    ) -> builtins.list[StoredEvent]:
        """The run's events numbered above `seq`, in order, at most `limit`."""
        query = (
            sa.select(
                run_events.c.run_id,
                run_events.c.seq,
                run_events.c.type,
                run_events.c.data,
                run_events.c.created_at,
            )
            .where(run_events.c.run_id == run_id, run_events.c.seq > seq)
            .order_by(run_events.c.seq)
            .limit(limit)
        )
        rows = await self._db.read_batch(lambda conn: conn.execute(query).all())
        return [
            StoredEvent(run_id, seq, kind, self._sealer.open(data), created_at)
            for _, seq, kind, data, created_at in rows
        ]

    async def last_seq(self, run_id: str) -> int:
        """The number of the run's last stored event (0: none)."""
        query = sa.select(sa.func.max(run_events.c.seq)).where(run_events.c.run_id == run_id)
        last = await self._db.read_batch(lambda conn: conn.scalar(query))
        return int(last or 0)

    async def last_seqs(self, run_ids: Sequence[str]) -> dict[str, int]:
        """The number of each run's last stored event, in one trip however many runs
        (a run with none is left out)."""
        ids = list(dict.fromkeys(run_ids))
        queries = [
            sa.select(run_events.c.run_id, sa.func.max(run_events.c.seq))
            .where(run_events.c.run_id.in_(ids[at : at + IDS_PER_QUERY]))
            .group_by(run_events.c.run_id)
            for at in range(0, len(ids), IDS_PER_QUERY)
        ]

        def read(conn: Connection) -> dict[str, int]:
            return {run_id: int(last) for q in queries for run_id, last in conn.execute(q)}

        return await self._db.read_batch(read) if queries else {}
