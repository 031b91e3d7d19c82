"""Persistence for the goal solver (and, next, the service): one SQL database.

A SQLite file by default (`tiller.db` in the user's data directory, WAL mode, a busy
timeout), or PostgreSQL by URL; SQLAlchemy 2 async (aiosqlite, asyncpg) with the schema
managed by Alembic migrations shipped in this package. Needs `pip install 'tiller[store]'`.

    store = await Store.open()                                  # ~/.local/share/tiller/tiller.db
    store = await Store.open("postgresql://user:pw@host/db")    # or sqlite:///PATH
    store = await Store.open(data_dir=Path("state"), upgrade=True)
    async with store: ...                                       # or: await store.close()

Opening refuses, with a `StoreError` that says what to do and leaving the database
untouched: a file that is not a SQLite database (`NotADatabaseError`), another
program's database (`ForeignDatabaseError`), a newer Tiller's schema
(`UnknownSchemaError`), an older schema unless `upgrade=True` (`SchemaOutdatedError`,
naming `tiller db upgrade`). An empty database gets the schema. Approvals that fell due
while no process ran are timed out on open.

Solves (`store.solves`), state saved after every step with optimistic concurrency:

    id = await store.solves.create(objective, options)                 # -> str, version 0
    version = await store.solves.save_state(id, state, version=v, status=None, lease=None)
        # -> v + 1; StaleStateError if the stored version is no longer v; with `lease`,
        # LeaseLostError if another process has taken the solve over (nothing written)
    record = await store.solves.load(id)          # SolveRecord: state, version, status, …
    await store.solves.set_status(id, status)
    page = await store.solves.list(status=None, limit=20, before=None)  # newest first;
        # next page: before=page[-1].id

Leases (`store.leases`), one process runs a solve at a time:

    lease = await store.leases.claim(id, holder, seconds=30)   # SolveBusyError(holder, expires_at)
    await store.leases.renew(lease)                            # LeaseLostError if taken over
    await store.leases.release(lease)
    async with store.leases.hold(id) as lease: ...             # claims, renews, releases
        # (lease.lost / lease.check() tell a holder that was taken over)

Step journal (`store.steps`), written before a step runs and after it finished:

    await store.steps.step_started(id, step_key, tool, effect, arguments)   # -> StepEntry
    await store.steps.step_finished(id, step_key, outcome)
    await store.steps.interrupted_steps(id)   # started, never finished: re-run the
                                              # read-only ones, ask about the others
    await store.steps.steps(id); await store.steps.get(id, step_key)

Approvals (`store.approvals`), persisted before anyone is asked, decided once:

    aid = await store.approvals.request(solve_id, kind, event, context, due_at)   # -> str
    await store.approvals.decide(aid, approved, comment, edited_plan, decided_by)
        # ApprovalNotFound, ApprovalAlreadyDecided (exactly one of two racers wins)
    await store.approvals.get(aid); await store.approvals.list(status=..., solve_id=...)
    approval = await store.approvals.wait(aid, timeout=None)
        # approved / rejected: at once from this process, within 0.25 s from another;
        # timeout: its due time passed (stored as such); pending: `timeout` ran out first
    await store.approvals.expire_overdue(now=None)   # -> the approvals it timed out

Learning (`store.learning`), per workspace key:

    await store.learning.append(workspace, LearningKind.EPISODE, payload)
    await store.learning.latest(workspace, LearningKind.ROOT_CAUSE, n=10)  # newest first

Every table is in `tiller.store.tables.metadata`; a package that needs more tables adds
them there with a migration (see `tiller.store.schema_version`).
"""

from tiller.store.approvals import Approval, Approvals, ApprovalStatus
from tiller.store.errors import (
    ApprovalAlreadyDecided,
    ApprovalNotFound,
    DatabaseUnavailableError,
    ForeignDatabaseError,
    InvalidDatabaseURLError,
    InvalidDocumentError,
    LeaseLostError,
    NotADatabaseError,
    RecordNotFound,
    SchemaOutdatedError,
    SchemaUpgradeError,
    SolveBusyError,
    SolveNotFound,
    StaleStateError,
    StepJournalError,
    StoreError,
    UnknownSchemaError,
)
from tiller.store.learning import Learning, LearningKind, LearningRecord
from tiller.store.leases import Lease, Leases, default_holder
from tiller.store.locations import default_data_dir
from tiller.store.solves import SolveRecord, Solves, SolveSummary
from tiller.store.step_journal import StepEntry, StepJournal
from tiller.store.store import Store

__all__ = [
    "Approval",
    "ApprovalAlreadyDecided",
    "ApprovalNotFound",
    "ApprovalStatus",
    "Approvals",
    "DatabaseUnavailableError",
    "ForeignDatabaseError",
    "InvalidDatabaseURLError",
    "InvalidDocumentError",
    "Learning",
    "LearningKind",
    "LearningRecord",
    "Lease",
    "LeaseLostError",
    "Leases",
    "NotADatabaseError",
    "RecordNotFound",
    "SchemaOutdatedError",
    "SchemaUpgradeError",
    "SolveBusyError",
    "SolveNotFound",
    "SolveRecord",
    "SolveSummary",
    "Solves",
    "StaleStateError",
    "StepEntry",
    "StepJournal",
    "StepJournalError",
    "Store",
    "StoreError",
    "UnknownSchemaError",
    "default_data_dir",
    "default_holder",
]
