"""`Store`: the database of solves, leases, the step journal, approvals and learning."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Self

import sqlalchemy as sa
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from tiller.store.api_keys import ApiKeys
from tiller.store.approvals import POLL_INTERVAL, Approvals
from tiller.store.audit import AuditTrail
from tiller.store.auth_throttle import AuthThrottle
from tiller.store.database import Clock, Database, create_engine, enable_wal, utc_now
from tiller.store.errors import DatabaseUnavailableError, NotADatabaseError, StoreError
from tiller.store.learning import Learning
from tiller.store.leases import Leases
from tiller.store.locations import database_url, display_url
from tiller.store.run_events import RunEvents
from tiller.store.run_tool_calls import RunToolCalls
from tiller.store.runs import Runs
from tiller.store.schema_version import head_revision, prepare_schema, read_schema
from tiller.store.sealing import Sealer, is_sealed
from tiller.store.sessions import Sessions
from tiller.store.solves import Solves
from tiller.store.step_journal import StepJournal
from tiller.store.tables import run_events, run_tool_calls, runs, session_messages
from tiller.store.users import Users

SQLITE_HEADER = b"SQLite format 3\x00"
# Serialises schema creation and upgrades between processes on PostgreSQL.
SCHEMA_LOCK = 0x7E11E5C0DE


class Store:
    """The store: `solves`, `leases`, `steps` (the step journal), `approvals`, `learning`;
    for the service `sessions` (with their histories), `runs`, `run_events`,
    `run_tool_calls`, `users`, `api_keys`, `audit` and `auth_throttle`.

    Open it with `await Store.open(...)`; close it with `await store.close()` or use it
    as `async with await Store.open(...) as store:`."""

    def __init__(
        self, db: Database, *, poll_interval: float = POLL_INTERVAL, sealer: Sealer | None = None
    ) -> None:
        self.database = db
        self.sealer = sealer = sealer or Sealer()
        self.solves = Solves(db)
        self.leases = Leases(db)
        self.steps = StepJournal(db)
        self.approvals = Approvals(db, poll_interval=poll_interval)
        self.learning = Learning(db)
        self.sessions = Sessions(db, sealer)
        self.runs = Runs(db, sealer)
        self.run_events = RunEvents(db, sealer)
        self.run_tool_calls = RunToolCalls(db, sealer)
        self.users = Users(db)
        self.api_keys = ApiKeys(db)
        self.audit = AuditTrail(db)
        self.auth_throttle = AuthThrottle(db)
        # The schema revision the database had when opened (None: it was new, and got
        # the schema); differs from `revision` when `open` upgraded it.
        self.revision_before: str | None = None

    @classmethod
    async def open(
        cls,
        url: str | None = None,
        *,
        data_dir: Path | None = None,
        upgrade: bool = False,
        clock: Clock | None = None,
        poll_interval: float = POLL_INTERVAL,
        keys: Sequence[str] = (),
    ) -> Self:
        """Open the store at `url` (`sqlite:///PATH`, `postgresql://…`), or by default the
        SQLite file `tiller.db` in `data_dir` (default: the user's data directory).

        A new empty database gets the schema; an older Tiller schema is upgraded only
        with `upgrade` (else `SchemaOutdatedError`, naming `tiller db upgrade`). A file
        that is not a SQLite database, another program's database, or a newer Tiller's
        schema raise a `StoreError` and are left untouched. Approvals that fell due while
        no process ran are timed out. `clock` gives the store's "now" (UTC, for tests).
        `keys` are the Fernet keys that seal sensitive sessions' data, newest first."""
        sealer = Sealer(keys)
        target = database_url(url, data_dir=data_dir)
        where = display_url(target)
        if target.get_backend_name() == "sqlite":
            _check_sqlite_file(Path(str(target.database)))
        before = await _prepare(target, where=where, upgrade=upgrade)
        store = cls(
            Database(create_engine(target), target, clock or utc_now),
            poll_interval=poll_interval,
            sealer=sealer,
        )
        store.revision_before = before
        try:
            await store.approvals.expire_overdue()
        except (DBAPIError, OSError) as exc:
            await store.close()
            raise _unavailable(target, where, exc) from exc
        except BaseException:
            await store.close()
            raise
        return store

    @property
    def url(self) -> str:
        """The database, as a person may see it (a SQLite file as its path)."""
        return display_url(self.database.url)

    @property
    def revision(self) -> str:
        """The schema revision of the database (the newest this version knows)."""
        return head_revision()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """Commit every write of the block as one transaction, or none of them.

        The block's store calls must be awaited one after another in this task (a task it
        starts has the transaction's connection too, and one connection cannot serve two
        at once). An error raised by the database fails the whole block."""
        async with self.database.write():
            yield

    async def current_revision(self) -> str | None:
        """The schema revision the database has now (None: no Tiller schema)."""
        async with self.database.read() as conn:
            state = await conn.run_sync(read_schema)
        return state.revision

    async def reseal(self) -> int:
        """Seal every sealed document again with the first key (after a new key was put
        in front of the old one); how many were sealed again."""
        done = 0
        for table, key, columns in _SEALABLE:
            async with self.database.write() as conn:
                rows = (await conn.execute(sa.select(*key, *columns))).all()
                for row in rows:
                    values = {c.name: self.sealer.reseal(row._mapping[c.name]) for c in columns}
                    changed = {n: v for n, v in values.items() if is_sealed(v)}
                    if not changed:
                        continue
                    where = [k == row._mapping[k.name] for k in key]
                    await conn.execute(table.update().where(*where).values(**changed))
                    done += len(changed)
        return done

    def now(self) -> datetime:
        """The store's current time (UTC): what its due times and leases count from."""
        return self.database.clock()

    async def close(self) -> None:
        await self.database.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"


def _check_sqlite_file(path: Path) -> None:
    """Refuse a file that is not a SQLite database before SQLite touches it."""
    if path.is_dir():
        raise NotADatabaseError(f"{path} is a directory, not a database file")
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseUnavailableError(
                f"cannot create the directory of the database {path}: {exc.strerror}"
            ) from None
        return
    except OSError as exc:
        raise DatabaseUnavailableError(f"cannot read the database {path}: {exc.strerror}") from None
    if header and header != SQLITE_HEADER:
        raise NotADatabaseError(
            f"{path} is not a SQLite database (it does not start like one); it was left "
            "untouched. Move it away or give Tiller another database (--database URL or "
            "--data-dir DIR)."
        )


async def _prepare(target: URL, *, where: str, upgrade: bool) -> str | None:
    """Check the schema (creating or upgrading it as allowed) in one writing transaction."""
    probe = create_engine(target, foreign_keys=False)
    try:
        async with probe.execution_options(tiller_write=True).begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK}
                )
            before = await conn.run_sync(
                lambda sync: prepare_schema(sync, where=where, upgrade=upgrade)
            )
        if target.get_backend_name() == "sqlite":
            await enable_wal(probe)
        return before
    except StoreError:
        raise
    except (DBAPIError, OSError) as exc:
        raise _unavailable(target, where, exc) from exc
    finally:
        await probe.dispose()


# Where sensitive sessions' sealed documents are: (table, its key columns, JSON columns).
_SEALABLE = [
    (
        session_messages,
        [session_messages.c.session_id, session_messages.c.seq],
        [session_messages.c.message],
    ),
    (runs, [runs.c.id], [runs.c.input]),
    (run_events, [run_events.c.run_id, run_events.c.seq], [run_events.c.data]),
    (
        run_tool_calls,
        [run_tool_calls.c.run_id, run_tool_calls.c.call_id],
        [run_tool_calls.c.arguments, run_tool_calls.c.result],
    ),
]

DAMAGED = ("file is not a database", "malformed", "not a database")


def _unavailable(target: URL, where: str, exc: BaseException) -> StoreError:
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    if target.get_backend_name() == "sqlite":
        if any(phrase in reason for phrase in DAMAGED):
            return NotADatabaseError(
                f"{where} is damaged or not a SQLite database ({reason}); it was left "
                "untouched. Restore it from a backup, or move it away and Tiller starts a "
                "new one."
            )
        return DatabaseUnavailableError(f"cannot open the database {where}: {reason}")
    return DatabaseUnavailableError(
        f"cannot use the database {where}: {reason}; check that the server is running and "
        "that the URL's host, port, user, password and database name are right"
    )
