"""Approvals: questions to a person, persisted before anyone is asked, decided once.

`request` stores the question (pending) and returns its id; only then is anyone asked.
`decide` records approve or reject with one conditional UPDATE (only a pending approval
changes), so of two deciders racing exactly one wins; the other gets
`ApprovalAlreadyDecided`. `wait` returns as soon as the approval is decided: at once for
a decision made in this process, within `poll_interval` (a quarter second by default)
for one made by another process. An approval's due time is stored: when it passes
undecided the approval times out — `wait` applies it, and so does `expire_overdue`
(which `Store.open` runs, so approvals that fell due while no process ran time out on
the next start).
"""

from __future__ import annotations

import asyncio
import builtins
import uuid
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa

from tiller.store import decision_signal
from tiller.store.database import Database
from tiller.store.documents import JSONObject, checked
from tiller.store.errors import ApprovalAlreadyDecided, ApprovalNotFound, SolveNotFound
from tiller.store.tables import approvals, solves

# How often `wait` looks for a decision made by another process, in seconds.
POLL_INTERVAL = 0.25


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Approval:
    """An approval request and, once decided, its decision."""

    id: str
    solve_id: str | None
    kind: str
    event: str
    context: JSONObject
    status: ApprovalStatus
    created_at: datetime
    due_at: datetime | None
    decided_at: datetime | None
    comment: str | None
    edited_plan: Any
    decided_by: str | None
    run_id: str | None = None  # a service run's tool call waits for it
    owner_id: str | None = None  # the service user whose run or solve asks

    @property
    def decided(self) -> bool:
        return self.status is not ApprovalStatus.PENDING


def _approval(row: Any) -> Approval:
    return Approval(**{**row._mapping, "status": ApprovalStatus(row.status)})


class Approvals:
    """The approvals of one store (`store.approvals`)."""

    def __init__(self, db: Database, *, poll_interval: float = POLL_INTERVAL) -> None:
        self._db = db
        self._poll = poll_interval

    async def request(
        self,
        solve_id: str | None,
        kind: str,
        event: str,
        context: JSONObject,
        due_at: datetime | None = None,
        *,
        run_id: str | None = None,
        owner_id: str | None = None,
        approval_id: str | None = None,
    ) -> str:
        """Store a pending approval and return its id. `kind` says what is asked
        (a checkpoint, a tool call, a verification), `event` where (a checkpoint's event);
        `context` is what a person needs to decide; undecided at `due_at`, it times out.
        A service run's approval names its run and owner; `approval_id` chooses the id
        (one derived from what is asked lets a resumed run find its earlier request)."""
        checked(context, "the approval's context")
        approval_id = approval_id or uuid.uuid4().hex
        async with self._db.write() as conn:
            if solve_id is not None:
                solve = (
                    await conn.execute(
                        sa.select(solves.c.id, solves.c.owner_id).where(solves.c.id == solve_id)
                    )
                ).one_or_none()
                if solve is None:
                    raise SolveNotFound(solve_id)
                owner_id = owner_id or solve.owner_id  # a solve's questions are its owner's
            await conn.execute(
                approvals.insert().values(
                    id=approval_id,
                    solve_id=solve_id,
                    kind=kind,
                    event=event,
                    context=context,
                    status=ApprovalStatus.PENDING.value,
                    created_at=self._db.clock(),
                    due_at=due_at,
                    run_id=run_id,
                    owner_id=owner_id,
                )
            )
        return approval_id

    async def decide(
        self,
        approval_id: str,
        approved: bool,
        comment: str | None = None,
        edited_plan: Any = None,
        decided_by: str | None = None,
    ) -> Approval:
        """Approve or reject a pending approval (with a comment, and for a plan an edited
        plan as JSON); wakes its waiters. `ApprovalNotFound` for an unknown id,
        `ApprovalAlreadyDecided` when it was decided or timed out before."""
        if edited_plan is not None:
            checked(edited_plan, "the edited plan", object_only=False)
        status = ApprovalStatus.APPROVED if approved else ApprovalStatus.REJECTED
        row = await self._settle(
            approvals.c.id == approval_id,
            status=status.value,
            decided_at=self._db.clock(),
            comment=comment,
            edited_plan=edited_plan,
            decided_by=decided_by,
        )
        if not row:
            current = await self._find(approval_id)
            if current is None:
                raise ApprovalNotFound(approval_id)
            raise ApprovalAlreadyDecided(
                approval_id, status=current.status.value, decided_by=current.decided_by
            )
        decision_signal.signal(self._db.key, approval_id)
        return _approval(row[0])

    async def get(self, approval_id: str) -> Approval:
        """The approval; `ApprovalNotFound` when there is none with that id."""
        found = await self._find(approval_id)
        if found is None:
            raise ApprovalNotFound(approval_id)
        return found

    async def list(
        self,
        *,
        status: ApprovalStatus | str | None = None,
        solve_id: str | None = None,
        owner_id: str | None = None,
        limit: int = 100,
    ) -> list[Approval]:
        """Approvals oldest first (the order they were asked in), filtered when asked."""
        query = sa.select(approvals)
        if status is not None:
            query = query.where(approvals.c.status == ApprovalStatus(status).value)
        if solve_id is not None:
            query = query.where(approvals.c.solve_id == solve_id)
        if owner_id is not None:
            query = query.where(approvals.c.owner_id == owner_id)
        query = query.order_by(approvals.c.created_at, approvals.c.id).limit(limit)
        async with self._db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [_approval(row) for row in rows]

    # `timeout` as the caller's limit, beside the stored due time (not asyncio.timeout)
    async def wait(self, approval_id: str, timeout: float | None = None) -> Approval:  # noqa: ASYNC109
        """The approval once it is decided (approved or rejected) or timed out.

        Returns when a decision comes (at once from this process, within the poll
        interval from another) or when its due time passes (the approval is then stored
        as timed out). With `timeout` (seconds) it returns after that long at the latest,
        still pending if nothing happened: the caller's wait ends, the approval stays
        open. `ApprovalNotFound` for an unknown id."""
        loop = asyncio.get_running_loop()
        give_up = None if timeout is None else loop.time() + timeout
        with decision_signal.listening(self._db.key, approval_id) as decided:
            while True:
                current = await self.get(approval_id)
                if current.decided:
                    return current
                now = self._db.clock()
                if current.due_at is not None and current.due_at <= now:
                    expired = await self._expire(approvals.c.id == approval_id, now)
                    if expired:
                        return expired[0]
                    continue  # decided in between: read it
                pause = self._poll
                if current.due_at is not None:
                    pause = min(pause, (current.due_at - now).total_seconds())
                if give_up is not None:
                    left = give_up - loop.time()
                    if left <= 0:
                        return current
                    pause = min(pause, left)
                with suppress(TimeoutError):
                    await asyncio.wait_for(decided.wait(), max(pause, 0.0))

    async def expire_overdue(self, now: datetime | None = None) -> builtins.list[Approval]:
        """Time out every pending approval due at or before `now` (default: the clock);
        returns them. Waiters in this process wake."""
        return await self._expire(sa.true(), now or self._db.clock())

    async def _expire(
        self, which: sa.ColumnElement[bool], now: datetime
    ) -> builtins.list[Approval]:
        rows = await self._settle(
            which,
            approvals.c.due_at.is_not(None),
            approvals.c.due_at <= now,
            status=ApprovalStatus.TIMEOUT.value,
            decided_at=now,
        )
        expired = [_approval(row) for row in rows]
        for approval in expired:
            decision_signal.signal(self._db.key, approval.id)
        return expired

    async def _settle(self, *where: sa.ColumnElement[bool], **values: Any) -> builtins.list[Any]:
        """Set `values` on the pending approvals matching `where`; the rows it changed."""
        async with self._db.write() as conn:
            result = await conn.execute(
                approvals.update()
                .where(approvals.c.status == ApprovalStatus.PENDING.value, *where)
                .values(**values)
                .returning(*approvals.c)
            )
            return list(result.all())

    async def _find(self, approval_id: str) -> Approval | None:
        async with self._db.read() as conn:
            row = (
                await conn.execute(sa.select(approvals).where(approvals.c.id == approval_id))
            ).one_or_none()
        return None if row is None else _approval(row)
