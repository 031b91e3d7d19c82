"""The connection to the database: an async engine set up for the store's transactions.

On SQLite the store manages transactions itself (the driver's implicit ones are off):
a read begins a deferred transaction, a write begins `BEGIN IMMEDIATE`, so two
processes writing the same file queue on the busy timeout instead of failing halfway.
The file is switched to WAL mode (readers never wait for the writer; see
`enable_wal`) only once the store has checked that the file is a Tiller database.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from tiller.store.locations import display_url

Clock = Callable[[], datetime]

# How long a SQLite connection waits for another process's write lock, in seconds.
SQLITE_BUSY_TIMEOUT = 30.0
# How long a PostgreSQL connection attempt may take, in seconds.
CONNECT_TIMEOUT = 10.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def create_engine(url: URL, *, foreign_keys: bool = True) -> AsyncEngine:
    """An engine for `url`; on SQLite with the store's pragmas and transactions.

    `foreign_keys=False` is for migrations only: SQLite changes a table by copying it
    and dropping the old one, and with foreign keys enforced dropping a table deletes
    the rows of the tables that refer to it (ON DELETE CASCADE)."""
    if url.get_backend_name() != "sqlite":
        return create_async_engine(
            url,
            json_serializer=_json_text,
            pool_pre_ping=True,
            connect_args={"timeout": CONNECT_TIMEOUT},
        )
    engine = create_async_engine(
        url, json_serializer=_json_text, connect_args={"timeout": SQLITE_BUSY_TIMEOUT}
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT * 1000)}")
            cursor.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
            # In WAL mode: a commit survives the process being killed; a power cut may
            # lose the last commits, never the file.
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        writing = connection.get_execution_options().get("tiller_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return engine


async def enable_wal(engine: AsyncEngine) -> None:
    """Switch the SQLite file to WAL mode (it stays so). SQLite answers "locked" at once,
    without waiting, while another connection holds a lock: try again until the busy
    timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT
    while True:
        try:
            async with engine.connect() as connection:
                raw = await connection.get_raw_connection()
                driver: Any = raw.driver_connection  # aiosqlite's connection
                cursor = await driver.execute("PRAGMA journal_mode = WAL")
                await cursor.close()
                return
        except (OperationalError, sqlite3.OperationalError) as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.02)


class Database:
    """An engine with the store's two kinds of transaction, and the clock it stamps with.

    Within `write()`, the reads and writes of the same task join that transaction, so
    several repository calls can commit as one (`Store.transaction`)."""

    def __init__(self, engine: AsyncEngine, url: URL, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.url = url
        self.clock = clock
        self._writer = engine.execution_options(tiller_write=True)
        self._open: ContextVar[AsyncConnection | None] = ContextVar(
            f"transaction of {id(self)}", default=None
        )

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @property
    def key(self) -> str:
        """Names this database the same in every process (without the password)."""
        return self.url.render_as_string(hide_password=True)

    def __repr__(self) -> str:
        return f"Database({display_url(self.url)!r})"

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that only reads (or the write transaction this task has open)."""
        joined = self._open.get()
        if joined is not None:
            yield joined
            return
        async with self.engine.begin() as connection:
            yield connection

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that writes: committed at the end, rolled back on an error. Inside
        another `write()` of the same task it joins that one, which commits everything."""
        joined = self._open.get()
        if joined is not None:
            yield joined
            return
        async with self._writer.begin() as connection:
            token = self._open.set(connection)
            try:
                yield connection
            finally:
                self._open.reset(token)
