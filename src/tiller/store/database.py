"""The connection to the database: an async engine set up for the store's transactions.

On SQLite the store manages transactions itself (the driver's implicit ones are off):
a read begins a deferred transaction, a write begins `BEGIN IMMEDIATE`, so two
processes writing the same file queue on the busy timeout instead of failing halfway.
The file is switched to WAL mode (readers never wait for the writer; see
`enable_wal`) only once the store has checked that the file is a Tiller database.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Table, create_engine as create_sync_engine, event
from sqlalchemy.engine import URL, Connection, Dialect, Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from tiller.store.documents import json_text
from tiller.store.locations import display_url

Clock = Callable[[], datetime]
T = TypeVar("T")

# How long a SQLite connection waits for another process's write lock, in seconds.
SQLITE_BUSY_TIMEOUT = 30.0
# Connections a SQLite store keeps open, and how many more a burst may open.
SQLITE_POOL_SIZE = 20
SQLITE_POOL_OVERFLOW = 60
# Threads that run `Database.read_batch` on SQLite (readers never wait for each other).
READ_THREADS = 4
# Rows one INSERT statement carries on SQLite (within its limit of bound values).
SQLITE_ROWS_PER_INSERT = 500
# How long a PostgreSQL connection attempt may take, in seconds.
CONNECT_TIMEOUT = 10.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def create_engine(url: URL, *, foreign_keys: bool = True) -> AsyncEngine:
    """An engine for `url`; on SQLite with the store's pragmas and transactions.

    `foreign_keys=False` is for migrations only: SQLite changes a table by copying it
    and dropping the old one, and with foreign keys enforced dropping a table deletes
    the rows of the tables that refer to it (ON DELETE CASCADE)."""
    if url.get_backend_name() != "sqlite":
        return create_async_engine(
            url,
            json_serializer=json_text,
            pool_pre_ping=True,
            connect_args={"timeout": CONNECT_TIMEOUT},
        )
    engine = create_async_engine(
        url,
        json_serializer=json_text,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT},
        # A SQLite connection is a file handle and an idle thread; under a burst of
        # requests each holds one for a few trips through a busy event loop, so a
        # small pool runs dry long before the database is the limit.
        pool_size=SQLITE_POOL_SIZE,
        max_overflow=SQLITE_POOL_OVERFLOW,
    )
    _set_up_sqlite(engine.sync_engine, foreign_keys=foreign_keys)
    return engine


def _set_up_sqlite(engine: Engine, *, foreign_keys: bool, always_write: bool = False) -> None:
    """The store's pragmas and transactions on every connection of a SQLite `engine`."""

    @event.listens_for(engine, "connect")
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

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        writing = always_write or connection.get_execution_options().get("tiller_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


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
        # SQLite: `write_batch`'s own connection, used by one thread of its own, and
        # `read_batch`'s connections, used by a few threads of their own.
        self._batch_engine: Engine | None = None
        self._batch_thread: ThreadPoolExecutor | None = None
        self._read_engine: Engine | None = None
        self._read_threads: ThreadPoolExecutor | None = None

    async def write_batch(self, work: Callable[[Connection], T]) -> T:
        """`work(connection)` in a write transaction, on a synchronous connection: many
        statements for the wait of one (or in the write transaction this task has open).

        On SQLite the whole transaction runs in a thread of its own. The async driver
        sends each statement, cursor and fetch to its thread and waits for the answer to
        come back through the event loop: a dozen round trips per transaction, each
        waiting for a turn of a loop that may be busy with a thousand runs. Elsewhere
        `work` runs on the async connection, whose driver needs no thread."""
        joined = self._open.get()
        if joined is not None:
            return await joined.run_sync(work)
        if self.dialect != "sqlite":
            async with self.write() as connection:
                return await connection.run_sync(work)
        if self._batch_thread is None:
            self._batch_thread = ThreadPoolExecutor(1, thread_name_prefix="store writer")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._batch_thread, self._write_now, work)

    def _write_now(self, work: Callable[[Connection], T]) -> T:
        if self._batch_engine is None:
            self._batch_engine = self._sync_engine(always_write=True, pool_size=1)
        with self._batch_engine.begin() as connection:
            return work(connection)

    async def read_batch(self, work: Callable[[Connection], T]) -> T:
        """`work(connection)` in a transaction that only reads, on a synchronous
        connection (or in the write transaction this task has open). On SQLite it runs in
        one of a few threads of the store's own: one trip through the event loop instead
        of one for every statement, cursor and fetch, as with `write_batch`."""
        joined = self._open.get()
        if joined is not None:
            return await joined.run_sync(work)
        if self.dialect != "sqlite":
            async with self.engine.begin() as connection:
                return await connection.run_sync(work)
        if self._read_threads is None:
            self._read_threads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="store reader")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._read_threads, self._read_now, work)

    def _read_now(self, work: Callable[[Connection], T]) -> T:
        if self._read_engine is None:
            self._read_engine = self._sync_engine(always_write=False, pool_size=READ_THREADS)
        with self._read_engine.begin() as connection:
            return work(connection)

    def _sync_engine(self, *, always_write: bool, pool_size: int) -> Engine:
        """A synchronous engine on the SQLite file, with the store's pragmas, for
        connections used by threads of the store's own."""
        engine = create_sync_engine(
            self.url.set(drivername="sqlite+pysqlite"),
            json_serializer=json_text,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT, "check_same_thread": False},
            pool_size=pool_size,
            max_overflow=0,
        )
        _set_up_sqlite(engine, foreign_keys=True, always_write=always_write)
        return engine

    async def close(self) -> None:
        """Close every connection (after the batch being written, if one is)."""
        if self._batch_thread is not None:
            # Its last task: everything queued before it is written. (Not waited for on
            # the loop's default executor, which may be shut down by now.)
            await asyncio.get_running_loop().run_in_executor(self._batch_thread, _nothing)
            self._batch_thread.shutdown()
        if self._read_threads is not None:
            self._read_threads.shutdown(wait=False)  # they finish what they were given
        for engine in (self._batch_engine, self._read_engine):
            if engine is not None:
                engine.dispose()
        await self.engine.dispose()

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


def _nothing() -> None:
    pass


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert `rows` (each with the same columns) in as few statements as can be.

    On SQLite, `executemany` steps the statement once per row and lets go of the GIL
    around every step; in a thread of its own next to a busy event loop, each of those
    waits for the GIL to come back. One statement per `SQLITE_ROWS_PER_INSERT` rows,
    its values converted by the columns' own types, waits once. Elsewhere the driver's
    `executemany` already sends the rows together."""
    if not rows:
        return
    dialect = conn.dialect
    if dialect.name != "sqlite":
        conn.execute(table.insert(), rows)
        return
    names = list(rows[0])
    quote = dialect.identifier_preparer.quote
    converters = _converters(table, tuple(names), dialect)
    head = f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) VALUES "
    one_row = "(" + ", ".join("?" for _ in names) + ")"
    columns = list(zip(names, converters, strict=True))
    for start in range(0, len(rows), SQLITE_ROWS_PER_INSERT):
        chunk = rows[start : start + SQLITE_ROWS_PER_INSERT]
        values = tuple(_converted(chunk, columns))
        conn.exec_driver_sql(head + ", ".join(one_row for _ in chunk), values)


def _converted(rows: list[dict[str, Any]], columns: list[tuple[str, _Converter]]) -> list[Any]:
    """The rows' values, in order, each converted by its column's type. A value that is
    the very object the row before had there (the batch's one timestamp) is converted
    once."""
    values: list[Any] = []
    last: list[tuple[Any, Any]] = [(_NOTHING, None)] * len(columns)
    for row in rows:
        for at, (name, convert) in enumerate(columns):
            value = row[name]
            if convert is None:
                values.append(value)
                continue
            before, converted = last[at]
            if value is not before:
                converted = convert(value)
                last[at] = (value, converted)
            values.append(converted)
    return values


_NOTHING = object()


_Converter = Callable[[Any], Any] | None
_CONVERTERS: dict[tuple[str, tuple[str, ...], str], list[_Converter]] = {}


def _converters(table: Table, names: tuple[str, ...], dialect: Dialect) -> list[_Converter]:
    """What each column's type does to a value before the driver gets it."""
    key = (table.name, names, dialect.name)
    found = _CONVERTERS.get(key)
    if found is None:
        found = _CONVERTERS[key] = [
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
        ]
    return found
