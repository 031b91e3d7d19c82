"""Solves: created with an objective and options, their state saved after every step.

The state is one JSON document with a version number. `save_state` writes it only if
the version the writer loaded is still the stored one, and adds one to it, in one
conditional UPDATE: a writer that loaded an older version gets `StaleStateError` and
writes nothing (optimistic concurrency, race-free on SQLite and PostgreSQL).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from tiller.store.database import Database
from tiller.store.documents import JSONObject, checked
from tiller.store.errors import LeaseLostError, SolveNotFound, StaleStateError
from tiller.store.leases import Lease
from tiller.store.tables import solves

NEW_STATUS = "pending"
PAGE_SIZE = 20


@dataclass(frozen=True, slots=True)
class SolveSummary:
    """A solve without its documents, as a list shows it."""

    id: str
    objective: str
    status: str
    version: int
    created_at: datetime
    updated_at: datetime
    lease_holder: str | None
    lease_expires_at: datetime | None
    owner_id: str | None  # the service user who started it (None: not started there)


@dataclass(frozen=True, slots=True)
class SolveRecord(SolveSummary):
    """A solve with its options and its state document (None until the first save)."""

    options: JSONObject
    state: JSONObject | None


_SUMMARY_COLUMNS = [
    solves.c.id,
    solves.c.objective,
    solves.c.status,
    solves.c.version,
    solves.c.created_at,
    solves.c.updated_at,
    solves.c.lease_holder,
    solves.c.lease_expires_at,
    solves.c.owner_id,
]


class Solves:
    """The solves of one store (`store.solves`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(
        self,
        objective: str,
        options: JSONObject | None = None,
        *,
        status: str = NEW_STATUS,
        state: JSONObject | None = None,
        owner_id: str | None = None,
    ) -> str:
        """A new solve at state version 0; returns its id. `owner_id`: the service user
        who starts it."""
        options = checked(options or {}, "the solve's options")
        if state is not None:
            checked(state, "the solve's state")
        solve_id = uuid.uuid4().hex
        now = self._db.clock()
        async with self._db.write() as conn:
            await conn.execute(
                solves.insert().values(
                    id=solve_id,
                    objective=objective,
                    options=options,
                    status=status,
                    state=state,
                    version=0,
                    created_at=now,
                    updated_at=now,
                    owner_id=owner_id,
                )
            )
        return solve_id

    async def save_state(
        self,
        solve_id: str,
        state: JSONObject,
        *,
        version: int,
        status: str | None = None,
        lease: Lease | None = None,
    ) -> int:
        """Replace the state saved at `version` by `state` (and the status, when given);
        returns the new version, `version + 1`.

        Raises `StaleStateError` when the stored version is no longer `version` (another
        writer saved since), `SolveNotFound` when there is no such solve, and with `lease`
        `LeaseLostError` when the solve's lease is no longer that lease's (a process whose
        lease was taken over cannot write); none of them writes anything."""
        checked(state, "the solve's state")
        values: dict[str, Any] = {
            "state": state,
            "version": solves.c.version + 1,
            "updated_at": self._db.clock(),
        }
        if status is not None:
            values["status"] = status
        where = [solves.c.id == solve_id, solves.c.version == version]
        if lease is not None:
            where.append(solves.c.lease_holder == lease.holder)
        async with self._db.write() as conn:
            result = await conn.execute(solves.update().where(*where).values(**values))
            if result.rowcount == 1:
                return version + 1
            row = (
                await conn.execute(
                    sa.select(solves.c.version, solves.c.lease_holder).where(
                        solves.c.id == solve_id
                    )
                )
            ).one_or_none()
        if row is None:
            raise SolveNotFound(solve_id)
        if lease is not None and row.lease_holder != lease.holder:
            lease.lost = True
            raise LeaseLostError(solve_id, holder=lease.holder, now_held_by=row.lease_holder)
        raise StaleStateError(solve_id, expected=version, actual=row.version)

    async def set_status(self, solve_id: str, status: str) -> None:
        """Change only the status (the state and its version stay as they are)."""
        async with self._db.write() as conn:
            result = await conn.execute(
                solves.update()
                .where(solves.c.id == solve_id)
                .values(status=status, updated_at=self._db.clock())
            )
        if result.rowcount != 1:
            raise SolveNotFound(solve_id)

    async def load(self, solve_id: str) -> SolveRecord:
        """The solve with its state; `SolveNotFound` when there is none."""
        async with self._db.read() as conn:
            row = (
                await conn.execute(sa.select(solves).where(solves.c.id == solve_id))
            ).one_or_none()
        if row is None:
            raise SolveNotFound(solve_id)
        return SolveRecord(**row._mapping)

    async def list(
        self,
        *,
        status: str | None = None,
        limit: int = PAGE_SIZE,
        before: str | None = None,
        owner_id: str | None = None,
    ) -> list[SolveSummary]:
        """Up to `limit` solves, newest first; only those with `status` (and of
        `owner_id`) when given. The next page: `before=` the id of the last solve of this
        one."""
        query = sa.select(*_SUMMARY_COLUMNS)
        if status is not None:
            query = query.where(solves.c.status == status)
        if owner_id is not None:
            query = query.where(solves.c.owner_id == owner_id)
        query = query.order_by(solves.c.created_at.desc(), solves.c.id.desc()).limit(limit)
        async with self._db.read() as conn:
            if before is not None:
                mark = (
                    await conn.execute(
                        sa.select(solves.c.created_at, solves.c.id).where(solves.c.id == before)
                    )
                ).one_or_none()
                if mark is None:
                    raise SolveNotFound(before)
                query = query.where(
                    sa.or_(
                        solves.c.created_at < mark.created_at,
                        sa.and_(solves.c.created_at == mark.created_at, solves.c.id < mark.id),
                    )
                )
            rows = (await conn.execute(query)).all()
        return [SolveSummary(*row) for row in rows]
