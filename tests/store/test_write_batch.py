"""`Database.write_batch` and `read_batch`: work given a synchronous connection, in one
transaction (on SQLite in threads of the store's own), or joined to the task's open one."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tiller.store import Store
from tiller.store.database import SQLITE_ROWS_PER_INSERT, insert_rows
from tiller.store.errors import SessionNotFound
from tiller.store.tables import run_events, sessions


async def _titles(store: Store) -> list[str]:
    async with store.database.read() as conn:
        return sorted((await conn.execute(sa.select(sessions.c.title))).scalars())


async def test_the_work_commits_as_one_transaction_or_not_at_all(store: Store) -> None:
    first = await store.sessions.create("ann", title="a", model="m")
    second = await store.sessions.create("ann", title="b", model="m")

    def rename(conn: Connection) -> int:
        conn.execute(sessions.update().where(sessions.c.id == first.id).values(title="a2"))
        conn.execute(sessions.update().where(sessions.c.id == second.id).values(title="b2"))
        return 2

    assert await store.database.write_batch(rename) == 2
    assert await _titles(store) == ["a2", "b2"]

    def rename_then_fail(conn: Connection) -> None:
        conn.execute(sessions.update().where(sessions.c.id == first.id).values(title="lost"))
        raise SessionNotFound("gone")

    with pytest.raises(SessionNotFound):
        await store.database.write_batch(rename_then_fail)
    assert await _titles(store) == ["a2", "b2"]  # nothing of the failed work is kept


async def test_inside_a_store_transaction_the_work_joins_it(store: Store) -> None:
    session = await store.sessions.create("ann", title="a", model="m")

    def rename(conn: Connection) -> None:
        conn.execute(sessions.update().where(sessions.c.id == session.id).values(title="new"))

    seen_inside: list[str] = []

    async def rename_then_fail() -> None:
        async with store.transaction():
            await store.database.write_batch(rename)
            seen_inside.extend(await _titles(store))
            raise RuntimeError("after the batch")

    with pytest.raises(RuntimeError, match="after"):
        await rename_then_fail()
    assert seen_inside == ["new"]
    assert await _titles(store) == ["a"]  # rolled back with it


async def test_on_sqlite_the_work_runs_off_the_event_loop_and_close_ends_its_thread(
    tmp_path: Path,
) -> None:
    async with await Store.open(f"sqlite:///{tmp_path}/t.db") as store:
        seen: list[int] = []
        await store.database.write_batch(lambda conn: seen.append(threading.get_ident()))
        assert seen != [threading.get_ident()]
    assert not any(t.ident == seen[0] and t.is_alive() for t in threading.enumerate())


async def test_a_read_batch_reads_in_one_transaction_or_in_the_tasks_open_one(
    store: Store,
) -> None:
    session = await store.sessions.create("ann", title="a", model="m")

    def titles(conn: Connection) -> list[str]:
        return sorted(conn.execute(sa.select(sessions.c.title)).scalars())

    assert await store.database.read_batch(titles) == ["a"]
    seen_inside: list[str] = []

    async def rename_then_fail() -> None:
        async with store.transaction():
            await store.database.write_batch(
                lambda conn: conn.execute(sessions.update().values(title="new"))
            )
            seen_inside.extend(await store.database.read_batch(titles))
            raise RuntimeError("after the read")

    with pytest.raises(RuntimeError, match="after"):
        await rename_then_fail()
    assert seen_inside == ["new"]  # what the open transaction wrote
    assert await store.database.read_batch(titles) == ["a"]
    assert (await store.sessions.get("ann", session.id)).title == "a"


async def test_on_sqlite_reads_run_off_the_event_loop_at_once(tmp_path: Path) -> None:
    async with await Store.open(f"sqlite:///{tmp_path}/t.db") as store:
        await store.sessions.create("ann", title="a", model="m")
        started = threading.Barrier(2, timeout=10)

        def read(conn: Connection) -> int:
            started.wait()  # both readers are in their transactions at the same time
            return len(conn.execute(sa.select(sessions.c.id)).all())

        both = await asyncio.gather(
            store.database.read_batch(read), store.database.read_batch(read)
        )
        assert list(both) == [1, 1]


async def test_rows_inserted_together_read_back_as_given(store: Store) -> None:
    """More rows than one statement carries on SQLite, each value converted by its
    column's type (a JSON document, a time with its zone) as a single insert would."""
    session = await store.sessions.create("ann", title="a", model="m")
    run = (await store.runs.start("ann", session.id, [{"role": "user", "content": []}])).run
    count = SQLITE_ROWS_PER_INSERT * 2 + 7
    at = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone(timedelta(hours=2)))
    rows = [
        {
            "run_id": run.id,
            "seq": n + 1,
            "type": "message_update",
            "data": {"n": n, "text": 'é "quoted"', "nested": [None, 1.5, True]},
            "created_at": at,
        }
        for n in range(count)
    ]
    await store.database.write_batch(lambda conn: insert_rows(conn, run_events, rows))
    stored = await store.run_events.after(run.id, 0, limit=count + 1)
    assert [e.seq for e in stored] == list(range(1, count + 1))
    assert [e.data for e in stored] == [row["data"] for row in rows]
    assert {e.created_at for e in stored} == {at}
    assert stored[0].created_at.utcoffset() == timedelta(0)  # read back in UTC


async def test_closing_needs_no_default_executor(tmp_path: Path) -> None:
    """The server closes its store last, after DBOS shut the loop's default executor
    down (DBOS makes its own the default)."""
    store = await Store.open(f"sqlite:///{tmp_path}/t.db")
    session = await store.sessions.create("ann", title="a", model="m")
    await store.database.write_batch(lambda conn: conn.execute(sessions.update().values(title="b")))
    await asyncio.get_running_loop().shutdown_default_executor()
    await store.close()
    async with await Store.open(f"sqlite:///{tmp_path}/t.db") as again:
        assert (await again.sessions.get("ann", session.id)).title == "b"


async def test_a_burst_of_readers_on_sqlite_each_gets_a_connection(tmp_path: Path) -> None:
    """Forty transactions open at once (a burst of requests, each between two trips)."""
    readers = 40
    async with await Store.open(f"sqlite:///{tmp_path}/t.db") as store:
        inside = 0
        everyone_in = asyncio.Event()

        async def read() -> None:
            nonlocal inside
            async with store.database.read() as conn:
                await conn.execute(sa.select(sessions.c.id))
                inside += 1
                if inside == readers:
                    everyone_in.set()
                await everyone_in.wait()

        await asyncio.wait_for(asyncio.gather(*(read() for _ in range(readers))), 20)


async def test_each_rows_own_value_is_converted_when_rows_differ(store: Store) -> None:
    """The batch's one timestamp is converted once; another object in the same column
    is still converted as itself, whichever rows hold it."""
    session = await store.sessions.create("ann", title="a", model="m")
    run = (await store.runs.start("ann", session.id, [{"role": "user", "content": []}])).run
    first = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    second = first + timedelta(minutes=1)
    times = [first, first, second, first, second, second]
    rows = [
        {"run_id": run.id, "seq": n + 1, "type": "t", "data": {"n": n}, "created_at": at}
        for n, at in enumerate(times)
    ]
    await store.database.write_batch(lambda conn: insert_rows(conn, run_events, rows))
    stored = await store.run_events.after(run.id, 0)
    assert [e.created_at for e in stored] == times
    assert [e.data for e in stored] == [{"n": n} for n in range(len(times))]
