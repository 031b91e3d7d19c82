"""Revision 0005 keeps each session's last message number on its row: histories
stored before it are numbered on from their last message."""

from __future__ import annotations

import sqlalchemy as sa

from tiller.store import Store
from tiller.store.schema_version import _upgrade


def _sync_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


async def test_histories_stored_before_the_counter_are_numbered_on(url: str) -> None:
    engine = sa.create_engine(_sync_url(url))
    try:
        with engine.begin() as conn:
            _upgrade(conn, "0004")
            now = "2026-11-20 10:00:00+00:00"
            for session_id, messages in (("s1", 3), ("s2", 0)):
                conn.execute(
                    sa.text(
                        "INSERT INTO sessions (id, owner_id, title, model, tools,"
                        " context_strategy, sensitivity, status, created_at, updated_at)"
                        " VALUES (:id, 'ann', 't', 'm', '[]', 'none', 'normal', 'active',"
                        " :now, :now)"
                    ),
                    {"id": session_id, "now": now},
                )
                for seq in range(1, messages + 1):
                    conn.execute(
                        sa.text(
                            "INSERT INTO session_messages (session_id, seq, message, created_at)"
                            " VALUES (:id, :seq, '{}', :now)"
                        ),
                        {"id": session_id, "seq": seq, "now": now},
                    )
            _upgrade(conn, "head")
            rows = conn.execute(sa.text("SELECT id, last_seq FROM sessions")).all()
            counters: dict[str, int] = {row[0]: row[1] for row in rows}
    finally:
        engine.dispose()
    assert counters == {"s1": 3, "s2": 0}
    async with await Store.open(url) as store:
        assert await store.sessions.append_messages("s1", [{"role": "user"}], run_id=None) == 4
        assert await store.sessions.append_messages("s2", [{"role": "user"}], run_id=None) == 1
        assert [m.seq for m in await store.sessions.history("s1")] == [1, 2, 3, 4]
