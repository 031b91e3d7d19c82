"""The audit trail: chained records; a changed, removed or swapped record is named."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from tiller.store import Store
from tiller.store.tables import audit_log


async def _trail(store: Store, n: int = 5) -> None:
    for i in range(n):
        await store.audit.append("ann", "session.deleted", f"s{i}", {"i": i})


async def test_an_untouched_trail_verifies(store: Store) -> None:
    await _trail(store)
    result = await store.audit.verify()
    assert (result.ok, result.records) == (True, 5)
    assert [r.seq for r in await store.audit.list(limit=2)] == [5, 4]
    assert [r.target for r in await store.audit.list(action="session.deleted", before=3)] == [
        "s1",
        "s0",
    ]


async def test_a_changed_record_is_named(store: Store) -> None:
    await _trail(store)
    async with store.database.write() as conn:
        await conn.execute(audit_log.update().where(audit_log.c.seq == 3).values(actor="mallory"))
    result = await store.audit.verify()
    assert (result.ok, result.broken_at) == (False, 3)
    assert result.problem == "record 3 was changed after it was written"


async def test_a_removed_record_is_named(store: Store) -> None:
    await _trail(store)
    async with store.database.write() as conn:
        await conn.execute(audit_log.delete().where(audit_log.c.seq == 2))
    result = await store.audit.verify()
    assert (result.ok, result.broken_at) == (False, 3)
    assert result.problem == "records 2 to 2 are missing"


async def test_swapped_records_are_named(store: Store) -> None:
    await _trail(store)
    async with store.database.write() as conn:
        rows = {
            r.seq: dict(r._mapping)
            for r in (await conn.execute(sa.select(audit_log).where(audit_log.c.seq.in_([2, 3]))))
        }
        for seq, other in ((2, 3), (3, 2)):
            values = {k: v for k, v in rows[other].items() if k != "seq"}
            await conn.execute(audit_log.update().where(audit_log.c.seq == seq).values(**values))
    result = await store.audit.verify()
    assert (result.ok, result.broken_at) == (False, 2)
    assert "does not follow record 1" in (result.problem or "")


async def test_concurrent_appends_keep_one_chain(store: Store) -> None:
    await asyncio.gather(*(store.audit.append("bob", "key.issued", f"k{i}", {}) for i in range(40)))
    result = await store.audit.verify()
    assert (result.ok, result.records) == (True, 40)
