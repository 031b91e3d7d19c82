"""Sessions over time, on a controllable clock: idle ones archived compressed (their
history still readable), archives past retention deleted, each step audited."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from tiller.server.session_cleanup import clean_up
from tiller.server.settings import ServerSettings
from tiller.store import Store
from tiller.store.tables import session_archives, session_messages

HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


async def test_idle_sessions_are_archived_then_deleted(url: str, tmp_path: Path) -> None:
    settings = ServerSettings(
        database=url, data_dir=tmp_path, session_idle_s=24 * HOUR, archive_retention_s=72 * HOUR
    )
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        quiet = await store.sessions.create("ann", title="quiet", model="m")
        busy = await store.sessions.create("ann", title="busy", model="m")
        message = {"role": "user", "content": [{"type": "text", "text": "hello " * 200}]}
        await store.sessions.append_messages(quiet.id, [message, message], run_id=None)
        clock.advance(20 * HOUR)
        await store.sessions.append_messages(busy.id, [message], run_id=None)  # activity
        clock.advance(5 * HOUR)  # quiet: 25 h idle, busy: 5 h
        archived, deleted = await clean_up(store, settings)
        assert (archived, deleted) == ([quiet.id], [])
        assert [s.id for s in await store.sessions.list("ann")] == [busy.id]
        history = await store.sessions.history(quiet.id)  # read back from the archive
        assert [m.seq for m in history] == [1, 2]
        assert history[0].message == message
        async with store.database.read() as conn:
            left = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(session_messages)
                .where(session_messages.c.session_id == quiet.id)
            )
            size = await conn.scalar(
                sa.select(sa.func.length(session_archives.c.history)).where(
                    session_archives.c.session_id == quiet.id
                )
            )
        assert left == 0
        assert size is not None
        assert size < len(str(message))  # compressed
        assert await clean_up(store, settings) == ([], [])  # once only
        clock.advance(73 * HOUR)
        archived, deleted = await clean_up(store, settings)
        assert deleted == [quiet.id]
        assert busy.id in archived  # idle by now too
        assert await store.sessions.history(quiet.id) == []
        actions = [r.action for r in await store.audit.list()]
        assert actions.count("session.expired") == 2
        assert actions.count("session.purged") == 1
