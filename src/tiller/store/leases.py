"""Leases: one process at a time runs a solve.

A process claims a solve before running or resuming it: its holder id and an expiry go
into the solve's row by one conditional UPDATE (taken only if the solve is free, already
this holder's, or its lease has expired), so two claimants racing on SQLite or PostgreSQL
cannot both win. The loser gets `SolveBusyError` naming the holder and the expiry. The
holder renews the lease while it runs (`hold` does it in the background); a lease not
renewed in time expires and another process may take the solve over. A lease whose holder
is a process of this host that is no longer alive is taken over at once, so a solve whose
process was killed resumes without waiting for the expiry.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from tiller.store.database import Database
from tiller.store.errors import LeaseLostError, SolveBusyError, SolveNotFound
from tiller.store.tables import solves

log = logging.getLogger(__name__)

# How long a lease lasts without renewal, in seconds.
LEASE_SECONDS = 30.0


def default_holder() -> str:
    """A holder id naming this process: `host:pid:random`."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def holder_is_dead(holder: str) -> bool:
    """True when `holder` (as `default_holder` writes it) is a process of this host that has
    exited. Holders of other hosts, or of another form, are never judged dead: their lease
    runs out instead."""
    host, _, rest = holder.partition(":")
    pid, _, _ = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, owned by another user
        return False
    return _is_zombie(int(pid))


def _is_zombie(pid: int) -> bool:
    # A killed child its parent has not yet waited for still answers signal 0.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


@dataclass(slots=True)
class Lease:
    """A held lease. `lost` becomes True when a renewal found it taken over."""

    solve_id: str
    holder: str
    expires_at: datetime
    lost: bool = False

    def check(self) -> None:
        """Raise `LeaseLostError` if the lease was found lost."""
        if self.lost:
            raise LeaseLostError(self.solve_id, holder=self.holder, now_held_by=None)


class Leases:
    """The leases of the solves of one store (`store.leases`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def claim(self, solve_id: str, holder: str, *, seconds: float = LEASE_SECONDS) -> Lease:
        """Take the solve's lease for `seconds`: free, expired or already `holder`'s.

        Raises `SolveBusyError` when another holder's lease is current, `SolveNotFound`
        when there is no such solve."""
        now = self._db.clock()
        expires = now + timedelta(seconds=seconds)
        free = sa.or_(
            solves.c.lease_holder.is_(None),
            solves.c.lease_holder == holder,
            solves.c.lease_expires_at <= now,
        )
        async with self._db.write() as conn:
            result = await conn.execute(
                solves.update()
                .where(solves.c.id == solve_id, free)
                .values(lease_holder=holder, lease_expires_at=expires)
            )
            if result.rowcount == 1:
                return Lease(solve_id, holder, expires)
            row = (
                await conn.execute(
                    sa.select(solves.c.lease_holder, solves.c.lease_expires_at).where(
                        solves.c.id == solve_id
                    )
                )
            ).one_or_none()
            if row is None:
                raise SolveNotFound(solve_id)
            if holder_is_dead(row.lease_holder):
                # Conditional on the same dead holder: of two claimants racing, one wins.
                result = await conn.execute(
                    solves.update()
                    .where(solves.c.id == solve_id, solves.c.lease_holder == row.lease_holder)
                    .values(lease_holder=holder, lease_expires_at=expires)
                )
                if result.rowcount == 1:
                    log.info(
                        "took over solve %s from %s, which is no longer running",
                        solve_id,
                        row.lease_holder,
                    )
                    return Lease(solve_id, holder, expires)
        raise SolveBusyError(solve_id, holder=row.lease_holder, expires_at=row.lease_expires_at)

    async def renew(self, lease: Lease, *, seconds: float = LEASE_SECONDS) -> Lease:
        """Extend `lease` by `seconds` from now; `LeaseLostError` if it is no longer held.

        A lease past its expiry is still renewed if nobody has taken it over."""
        expires = self._db.clock() + timedelta(seconds=seconds)
        async with self._db.write() as conn:
            result = await conn.execute(
                solves.update()
                .where(solves.c.id == lease.solve_id, solves.c.lease_holder == lease.holder)
                .values(lease_expires_at=expires)
            )
            if result.rowcount == 1:
                lease.expires_at = expires
                return lease
            now_held_by = await conn.scalar(
                sa.select(solves.c.lease_holder).where(solves.c.id == lease.solve_id)
            )
        lease.lost = True
        raise LeaseLostError(lease.solve_id, holder=lease.holder, now_held_by=now_held_by)

    async def release(self, lease: Lease) -> None:
        """Give the lease up (nothing happens if it is no longer held)."""
        async with self._db.write() as conn:
            await conn.execute(
                solves.update()
                .where(solves.c.id == lease.solve_id, solves.c.lease_holder == lease.holder)
                .values(lease_holder=None, lease_expires_at=None)
            )

    @asynccontextmanager
    async def hold(
        self, solve_id: str, holder: str | None = None, *, seconds: float = LEASE_SECONDS
    ) -> AsyncIterator[Lease]:
        """Claim the solve, renew the lease every third of `seconds` while the block runs,
        and release it at the end. If a renewal finds the lease taken over, `lease.lost`
        becomes True (`lease.check()` raises) and renewing stops."""
        lease = await self.claim(solve_id, holder or default_holder(), seconds=seconds)

        async def keep() -> None:
            while True:
                await asyncio.sleep(seconds / 3)
                try:
                    await self.renew(lease, seconds=seconds)
                except LeaseLostError:
                    return
                except (SQLAlchemyError, OSError) as exc:  # try again at the next beat
                    log.warning("could not renew the lease of solve %s: %s", solve_id, exc)

        renewer = asyncio.create_task(keep(), name=f"lease of solve {solve_id}")
        try:
            yield lease
        finally:
            renewer.cancel()
            with suppress(asyncio.CancelledError):
                await renewer
            if not lease.lost:
                await self.release(lease)
