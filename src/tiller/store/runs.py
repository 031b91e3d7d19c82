"""Runs of the service (`store.runs`): one message to a session and what came of it.

A run is stored `queued` in the same transaction that checks its session may take it,
so a client that got its id back has it kept. A session runs its runs one at a time,
oldest first; `start` says what to do when it is busy (`Multitask`). Queries name the
owner: another owner's run is `RunNotFound`.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tiller.store.database import Database
from tiller.store.documents import checked
from tiller.store.errors import RunNotFound, SessionBusyError, SessionNotFound
from tiller.store.sealing import Sealer
from tiller.store.sessions import SessionStatus, is_sensitive
from tiller.store.tables import runs, sessions

PAGE_SIZE = 20


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED)


UNFINISHED = (RunStatus.QUEUED.value, RunStatus.RUNNING.value)

# The statements every run executes, built once so that each is compiled once: built
# anew for every call, SQLAlchemy spent longer building them than SQLite running them.
_SENSITIVITY = sa.select(sessions.c.sensitivity).where(
    sessions.c.id == sa.bindparam("session_id"),
    sessions.c.owner_id == sa.bindparam("owner_id"),
    sessions.c.status == sa.literal(SessionStatus.ACTIVE.value),
)
_UNFINISHED_OF_SESSION = (
    sa.select(runs.c.id)
    .where(runs.c.session_id == sa.bindparam("session_id"), runs.c.status.in_(UNFINISHED))
    .order_by(runs.c.created_at, runs.c.id)
)
_INSERT = runs.insert()
_MARK_RUNNING = (
    runs.update()
    .where(runs.c.id == sa.bindparam("run_id"), runs.c.status.in_(UNFINISHED))
    .values(
        status=RunStatus.RUNNING.value,
        started_at=sa.func.coalesce(
            runs.c.started_at, sa.bindparam("now", type_=runs.c.started_at.type)
        ),
        attempts=runs.c.attempts + 1,
    )
    .returning(*runs.c)
)
# The columns to set come with the values: status, finished_at, stop_reason, error, usage.
_FINISH = runs.update().where(runs.c.id == sa.bindparam("run_id"), runs.c.status.in_(UNFINISHED))


class Multitask(StrEnum):
    """What a message to a session that is already running does."""

    REJECT = "reject"  # refused (SessionBusyError)
    ENQUEUE = "enqueue"  # runs after the runs before it
    INTERRUPT = "interrupt"  # the running run is cancelled, then this one runs


@dataclass(frozen=True, slots=True)
class Run:
    id: str
    session_id: str
    owner_id: str
    status: RunStatus
    input: list[dict[str, Any]]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    stop_reason: str | None
    error: str | None
    usage: dict[str, Any] | None
    attempts: int


@dataclass(frozen=True, slots=True)
class Started:
    """A stored run, and the unfinished runs of its session it was queued behind."""

    run: Run
    ahead: builtins.list[str]


class Runs:
    """The runs of one store; a sensitive session's run input is sealed at rest."""

    def __init__(self, db: Database, sealer: Sealer | None = None) -> None:
        self._db = db
        self._sealer = sealer or Sealer()

    def _run(self, row: Any) -> Run:
        fields = dict(row._mapping)
        fields["input"] = self._sealer.open(fields["input"])["messages"]
        return Run(**{**fields, "status": RunStatus(row.status)})

    async def start(
        self,
        owner_id: str,
        session_id: str,
        messages: Sequence[dict[str, Any]],
        multitask: Multitask = Multitask.REJECT,
    ) -> Started:
        """Store a queued run of the owner's active session with its input `messages`.

        `SessionNotFound` for a session that is not the owner's or is archived;
        `SessionBusyError` when the session has an unfinished run and `multitask` is
        `reject`. With `enqueue` or `interrupt` the run is stored behind the unfinished
        ones, named in `Started.ahead` (the caller cancels them for `interrupt`)."""
        document = checked({"messages": list(messages)}, "the run's input")
        now = self._db.clock()
        run_id = uuid.uuid4().hex

        def start(conn: Connection) -> Started:
            of_session = {"session_id": session_id, "owner_id": owner_id}
            sensitivity = conn.scalar(_SENSITIVITY, of_session)
            if sensitivity is None:
                raise SessionNotFound(session_id)
            stored = self._sealer.seal(document) if is_sensitive(sensitivity) else document
            ahead = conn.scalars(_UNFINISHED_OF_SESSION, of_session).all()
            if ahead and multitask is Multitask.REJECT:
                raise SessionBusyError(session_id, ahead[0])
            values: dict[str, Any] = {
                "id": run_id,
                "session_id": session_id,
                "owner_id": owner_id,
                "status": RunStatus.QUEUED.value,
                "input": stored,
                "created_at": now,
                "started_at": None,
                "finished_at": None,
                "stop_reason": None,
                "error": None,
                "usage": None,
                "attempts": 0,
            }
            conn.execute(_INSERT, values)
            run = Run(**{**values, "status": RunStatus.QUEUED, "input": list(messages)})
            return Started(run, list(ahead))

        # In the store's writer, as one unit: on SQLite a transaction held open across
        # turns of a busy event loop would keep every other writer waiting.
        return await self._db.write_batch(start)

    async def get(self, owner_id: str, run_id: str) -> Run:
        return await self._one(run_id, runs.c.owner_id == owner_id)

    async def find(self, run_id: str) -> Run:
        """The run, whoever owns it (for the service's own work, never for a request)."""
        return await self._one(run_id)

    async def list(
        self,
        owner_id: str,
        session_id: str,
        *,
        limit: int = PAGE_SIZE,
        status: RunStatus | None = None,
    ) -> builtins.list[Run]:
        """The runs of the owner's session, newest first."""
        query = sa.select(runs).where(runs.c.owner_id == owner_id, runs.c.session_id == session_id)
        if status is not None:
            query = query.where(runs.c.status == status.value)
        query = query.order_by(runs.c.created_at.desc(), runs.c.id.desc()).limit(limit)
        async with self._db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [self._run(row) for row in rows]

    async def unfinished(self, session_id: str | None = None) -> builtins.list[Run]:
        """Runs queued or running (of one session, or all), oldest first."""
        query = sa.select(runs).where(runs.c.status.in_(UNFINISHED))
        if session_id is not None:
            query = query.where(runs.c.session_id == session_id)
        async with self._db.read() as conn:
            rows = (await conn.execute(query.order_by(runs.c.created_at, runs.c.id))).all()
        return [self._run(row) for row in rows]

    async def mark_running(self, run_id: str) -> Run:
        """The run starts (again, after a restart): running, one more attempt."""
        now = self._db.clock()

        def mark(conn: Connection) -> Any:
            return conn.execute(_MARK_RUNNING, {"run_id": run_id, "now": now}).one_or_none()

        row = await self._db.write_batch(mark)
        if row is None:
            return await self.find(run_id)
        return self._run(row)

    async def finish(
        self,
        run_id: str,
        status: RunStatus,
        *,
        stop_reason: str | None = None,
        error: str | None = None,
        usage: dict[str, Any] | None = None,
    ) -> bool:
        """Record how the run ended; False when it had ended already (nothing changes)."""
        if not status.finished:
            raise ValueError(f"{status} is not how a run ends")
        finished_at = self._db.clock()

        def finish(conn: Connection) -> bool:
            ended = {
                "run_id": run_id,
                "status": status.value,
                "finished_at": finished_at,
                "stop_reason": stop_reason,
                "error": error,
                "usage": usage,
            }
            return bool(conn.execute(_FINISH, ended).rowcount == 1)

        return await self._db.write_batch(finish)

    async def _one(self, run_id: str, *where: sa.ColumnElement[bool]) -> Run:
        async with self._db.read() as conn:
            row = (
                await conn.execute(sa.select(runs).where(runs.c.id == run_id, *where))
            ).one_or_none()
        if row is None:
            raise RunNotFound(run_id)
        return self._run(row)
