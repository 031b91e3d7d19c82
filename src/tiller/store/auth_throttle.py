"""Failed authentication, slowed then blocked (`store.auth_throttle`).

Failures are counted per source (a key's prefix, or a client's address) within a
window. After `slow_after` of them, each further failure makes the source wait before
it may try again, twice as long each time; after `block_after` it is blocked for
`block_s`. A success clears the source. The counts live in the database, so every
replica of the service sees the same ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

import sqlalchemy as sa

from tiller.store.database import Database
from tiller.store.tables import auth_failures

# Every request reads its sources' counts: the statement is built once, not per request.
_OF_SOURCES = sa.select(auth_failures).where(
    auth_failures.c.source.in_(sa.bindparam("sources", expanding=True))
)


@dataclass(frozen=True, slots=True)
class ThrottleRules:
    window_s: float = 600.0
    slow_after: int = 5
    first_delay_s: float = 1.0
    max_delay_s: float = 60.0
    block_after: int = 20
    block_s: float = 900.0


@dataclass(frozen=True, slots=True)
class Verdict:
    failures: int
    wait_s: float  # 0: may try now

    @property
    def blocked(self) -> bool:
        return self.wait_s > 0


class AuthThrottle:
    def __init__(self, db: Database, rules: ThrottleRules | None = None) -> None:
        self._db = db
        self.rules = rules or ThrottleRules()

    async def check(self, source: str) -> Verdict:
        """How long `source` must wait before it may try to authenticate (0: now)."""
        (verdict,) = await self.check_all([source])
        return verdict

    async def check_all(self, sources: Sequence[str]) -> list[Verdict]:
        """`check` of each source, in one query: every request authenticates."""
        rows = await self._db.read_batch(
            lambda conn: conn.execute(_OF_SOURCES, {"sources": list(sources)}).all()
        )
        found = {row.source: row for row in rows}
        now = self._db.clock()
        verdicts = []
        for source in sources:
            row = found.get(source)
            if row is None:
                verdicts.append(Verdict(0, 0.0))
                continue
            wait = (row.blocked_until - now).total_seconds() if row.blocked_until else 0.0
            verdicts.append(Verdict(row.failures, max(wait, 0.0)))
        return verdicts

    async def failed(self, source: str) -> Verdict:
        """Count a failure of `source`; how long it must now wait."""
        rules, now = self.rules, self._db.clock()
        key = auth_failures.c.source == source
        async with self._db.write() as conn:
            row = (
                await conn.execute(sa.select(auth_failures).where(key).with_for_update())
            ).one_or_none()
            start = now if row is None else row.window_start
            fresh = row is None or (now - start).total_seconds() > rules.window_s
            failures = 1 if row is None or fresh else row.failures + 1
            wait = 0.0
            if failures >= rules.block_after:
                wait = rules.block_s
            elif failures > rules.slow_after:
                extra = failures - rules.slow_after - 1
                wait = min(rules.first_delay_s * 2**extra, rules.max_delay_s)
            values = {
                "failures": failures,
                "window_start": now if fresh else start,
                "blocked_until": now + timedelta(seconds=wait) if wait else None,
            }
            if row is None:
                await conn.execute(auth_failures.insert().values(source=source, **values))
            else:
                await conn.execute(auth_failures.update().where(key).values(**values))
        return Verdict(failures, wait)

    async def succeeded(self, source: str) -> None:
        async with self._db.write() as conn:
            await conn.execute(auth_failures.delete().where(auth_failures.c.source == source))
