"""The audit trail (`store.audit`): append-only, each record chained to the one before.

Each record's hash is the SHA-256 of its fields (number, time, actor, action, target,
details, as canonical JSON) and the hash of the record before it. Appends take turns
(one writer at a time on SQLite; a transaction lock on PostgreSQL), so the chain never
forks. `verify` walks the chain and names the first record that was changed, removed
or moved.
"""

from __future__ import annotations

import builtins
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from tiller.store.database import Database
from tiller.store.documents import checked
from tiller.store.tables import audit_log

GENESIS = "0" * 64
# Serialises appends on PostgreSQL (SQLite's writers take turns already).
AUDIT_LOCK = 0x7E11E5A0D17


@dataclass(frozen=True, slots=True)
class AuditRecord:
    seq: int
    at: datetime
    actor: str
    action: str
    target: str
    details: dict[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class Verification:
    records: int
    broken_at: int | None = None  # the number of the first record that does not hold
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.broken_at is None


def record_hash(
    seq: int, at: datetime, actor: str, action: str, target: str, details: Any, prev: str
) -> str:
    fields = {
        "seq": seq,
        "at": at.astimezone(UTC).isoformat(),
        "actor": actor,
        "action": action,
        "target": target,
        "details": details,
        "prev": prev,
    }
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class AuditTrail:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def append(
        self, actor: str, action: str, target: str, details: dict[str, Any] | None = None
    ) -> AuditRecord:
        details = checked(details or {}, "the audit record's details")
        at = self._db.clock()
        async with self._db.write() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": AUDIT_LOCK})
            last = (
                await conn.execute(
                    sa.select(audit_log.c.seq, audit_log.c.hash)
                    .order_by(audit_log.c.seq.desc())
                    .limit(1)
                )
            ).one_or_none()
            seq = last.seq + 1 if last else 1
            prev = last.hash if last else GENESIS
            digest = record_hash(seq, at, actor, action, target, details, prev)
            record = AuditRecord(seq, at, actor, action, target, details, prev, digest)
            await conn.execute(audit_log.insert().values(**_values(record)))
        return record

    async def list(
        self,
        *,
        limit: int = 100,
        before: int | None = None,
        action: str | None = None,
        actor: str | None = None,
    ) -> builtins.list[AuditRecord]:
        """Records newest first; the next page: `before=` the last number of this one."""
        query = sa.select(audit_log).order_by(audit_log.c.seq.desc()).limit(limit)
        if before is not None:
            query = query.where(audit_log.c.seq < before)
        if action is not None:
            query = query.where(audit_log.c.action == action)
        if actor is not None:
            query = query.where(audit_log.c.actor == actor)
        async with self._db.read() as conn:
            return [AuditRecord(**row._mapping) for row in (await conn.execute(query)).all()]

    async def verify(self) -> Verification:
        """Walk the chain from the first record; the first one that does not hold."""
        count, expected_seq, prev = 0, 1, GENESIS
        async with self._db.read() as conn:
            rows = await conn.stream(sa.select(audit_log).order_by(audit_log.c.seq))
            async for row in rows:
                record = AuditRecord(**row._mapping)
                count += 1
                if record.seq != expected_seq:
                    return Verification(
                        count,
                        record.seq,
                        f"records {expected_seq} to {record.seq - 1} are missing",
                    )
                if record.prev_hash != prev:
                    return Verification(
                        count,
                        record.seq,
                        f"record {record.seq} does not follow record {record.seq - 1}: "
                        "a record before it was removed, replaced or moved",
                    )
                again = record_hash(
                    record.seq,
                    record.at,
                    record.actor,
                    record.action,
                    record.target,
                    record.details,
                    record.prev_hash,
                )
                if again != record.hash:
                    return Verification(
                        count, record.seq, f"record {record.seq} was changed after it was written"
                    )
                expected_seq, prev = record.seq + 1, record.hash
        return Verification(count)


def _values(record: AuditRecord) -> dict[str, Any]:
    return {
        "seq": record.seq,
        "at": record.at,
        "actor": record.actor,
        "action": record.action,
        "target": record.target,
        "details": record.details,
        "prev_hash": record.prev_hash,
        "hash": record.hash,
    }
