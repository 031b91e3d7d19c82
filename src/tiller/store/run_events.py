"""The events of the service's runs (`store.run_events`), numbered from 1 per run.

Events are written before anyone is sent them, so a client that reconnects asks for
the ones after the last number it saw and gets exactly those it missed.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tiller.store.database import Database, insert_rows
from tiller.store.documents import Document, EncodedJSON, json_text
from tiller.store.sealing import Sealer
from tiller.store.tables import run_events

IDS_PER_QUERY = 500  # run ids named in one statement (SQLite limits its parameters)


class StoredEvent:
    """A stored event of a run. Its data comes as a dict (read from the store) or as
    JSON text (handed over by the writer that stored it); each form is made from the
    other the first time it is asked for, so an event streamed as text that it already
    is is never decoded or encoded again."""

    __slots__ = ("_data", "_text", "created_at", "run_id", "seq", "type")

    def __init__(
        self,
        run_id: str,
        seq: int,
        type: str,
        data: Document,
        created_at: datetime,
    ) -> None:
        self.run_id = run_id
        self.seq = seq
        self.type = type
        self.created_at = created_at
        self._text = data.text if isinstance(data, EncodedJSON) else None
        self._data = None if isinstance(data, EncodedJSON) else data

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            assert self._text is not None
            self._data = json.loads(self._text)
        return self._data

    @property
    def text(self) -> str:
        """The data as JSON text."""
        if self._text is None:
            self._text = json_text(self._data)
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StoredEvent):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.run_id, self.seq))

    def __repr__(self) -> str:
        return f"StoredEvent({self.run_id!r}, {self.seq}, {self.type!r}, {self.data!r})"

    def _key(self) -> tuple[Any, ...]:
        return (self.run_id, self.seq, self.type, self.data, self.created_at)


# An event to store: (seq, type, data), the data as a dict or already encoded.
EventRecord = tuple[int, str, Document]


# Read whenever a run starts executing (or resumes): built once.
_LAST_SEQ = sa.select(sa.func.max(run_events.c.seq)).where(
    run_events.c.run_id == sa.bindparam("run_id")
)
# Read whenever a stream starts or falls behind: built once.
_AFTER = (
    sa.select(
        run_events.c.run_id,
        run_events.c.seq,
        run_events.c.type,
        run_events.c.data,
        run_events.c.created_at,
    )
    .where(run_events.c.run_id == sa.bindparam("run_id"), run_events.c.seq > sa.bindparam("seq"))
    .order_by(run_events.c.seq)
    .limit(sa.bindparam("limit"))
)


class RunEvents:
    """The run events of one store."""

    def __init__(self, db: Database, sealer: Sealer | None = None) -> None:
        self._db = db
        self._sealer = sealer or Sealer()

    async def append(
        self,
        run_id: str,
        events: Sequence[EventRecord],
        *,
        sealed: bool = False,
    ) -> None:
        """Store `(seq, type, data)` events of the run in one transaction (their data
        sealed, for a sensitive session). A number taken twice is an `IntegrityError`:
        the run's writer numbers them, one at a time."""
        await self.append_many([(run_id, events, sealed)])

    async def append_many(self, batches: Sequence[tuple[str, Sequence[EventRecord], bool]]) -> None:
        """The events of several runs, `(run_id, events, sealed)` each, in one statement:
        what the writer of a process stores for every run it executes at once."""
        if any(events for _, events, _ in batches):
            await self._db.write_batch(self.appending(batches))

    def appending(
        self, batches: Sequence[tuple[str, Sequence[EventRecord], bool]]
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
        params = {"run_id": run_id, "seq": seq, "limit": limit}
        rows = await self._db.read_batch(lambda conn: conn.execute(_AFTER, params).all())
        return [
            StoredEvent(run_id, seq, kind, self._sealer.open(data), created_at)
            for _, seq, kind, data, created_at in rows
        ]

    async def last_seq(self, run_id: str) -> int:
        """The number of the run's last stored event (0: none)."""
        last = await self._db.read_batch(lambda conn: conn.scalar(_LAST_SEQ, {"run_id": run_id}))
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
