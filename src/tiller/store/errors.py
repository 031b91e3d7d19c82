"""What can go wrong with the store, each with what to do about it.

    StoreError                      (a TillerError)
    ├── DatabaseUnavailableError    the database cannot be reached or opened
    ├── InvalidDatabaseURLError     a URL of a kind the store does not support
    ├── InvalidDocumentError        a value to store that is not a JSON document
    ├── NotADatabaseError           the file is not a SQLite database, or is damaged
    ├── ForeignDatabaseError        a database that belongs to another program
    ├── SchemaOutdatedError         a Tiller database of an older schema: `tiller db upgrade`
    ├── UnknownSchemaError          a Tiller database of a schema this version does not know
    ├── SchemaUpgradeError          an upgrade that would have broken the data (rolled back)
    ├── RecordNotFound              no record of a kind has that id
    │   ├── SolveNotFound           no solve has that id
    │   ├── ApprovalNotFound        no approval has that id
    │   ├── SessionNotFound         no session of this owner has that id
    │   └── RunNotFound             no run of this owner has that id
    ├── SessionBusyError            a message to a running session that may not wait
    ├── StaleStateError             a state write based on an older version (optimistic concurrency)
    ├── SolveBusyError              another process holds the solve's lease
    ├── LeaseLostError              this process's lease was taken over after it expired
    ├── StepJournalError            a journal entry out of order (finished twice, never started)
    └── ApprovalAlreadyDecided      a second decision for one approval

None of them leaves the database changed: a failed call changes nothing.
"""

from __future__ import annotations

from datetime import datetime

from tiller.errors import TillerError, UsageError


class StoreError(TillerError):
    """Base of the store's errors."""


class DatabaseUnavailableError(StoreError):
    """The database could not be reached or opened."""


class InvalidDatabaseURLError(StoreError, UsageError):
    """The database URL is not one the store supports."""


class InvalidDocumentError(StoreError, UsageError):
    """A value given to the store cannot be stored as JSON (nothing was written)."""


class NotADatabaseError(StoreError):
    """The file is not a SQLite database, or its content is damaged."""


class ForeignDatabaseError(StoreError):
    """The database holds another program's tables; the store leaves it alone."""


class SchemaOutdatedError(StoreError):
    """A Tiller database whose schema is older than this version's: it needs upgrading."""

    def __init__(self, message: str, *, current: str, head: str) -> None:
        super().__init__(message)
        self.current = current
        self.head = head


class UnknownSchemaError(StoreError):
    """A Tiller database at a schema revision this version does not know (a newer Tiller's)."""

    def __init__(self, message: str, *, revision: str) -> None:
        super().__init__(message)
        self.revision = revision


class SchemaUpgradeError(StoreError):
    """An upgrade of the schema that found the data it left inconsistent; rolled back."""


class RecordNotFound(StoreError, LookupError):
    """No record of a kind has the id asked for."""

    def __init__(self, kind: str, record_id: str, hint: str | None = None) -> None:
        hint = hint or f"`tiller {kind}s list` shows them"
        super().__init__(f"no {kind} has the id {record_id!r}; {hint}")
        self.kind = kind
        self.record_id = record_id


class SolveNotFound(RecordNotFound):
    """No solve has the id asked for."""

    def __init__(self, solve_id: str) -> None:
        super().__init__("solve", solve_id)
        self.solve_id = solve_id


class SessionNotFound(RecordNotFound):
    """No session of this owner has the id asked for (another owner's is not found)."""

    def __init__(self, session_id: str) -> None:
        super().__init__("session", session_id, "GET /sessions lists yours")


class RunNotFound(RecordNotFound):
    """No run of this owner has the id asked for."""

    def __init__(self, run_id: str) -> None:
        super().__init__("run", run_id, "GET /sessions/{id}/runs lists a session's runs")


class SessionBusyError(StoreError):
    """A message to a session that is running, with `multitask=reject`."""

    def __init__(self, session_id: str, run_id: str) -> None:
        super().__init__(
            f"session {session_id!r} is running {run_id!r}; wait for it, or send with "
            "multitask=enqueue (run after it) or multitask=interrupt (cancel it first)"
        )
        self.session_id = session_id
        self.run_id = run_id


class StaleStateError(StoreError):
    """A state write expected a version the solve has moved past: another writer saved first."""

    def __init__(self, solve_id: str, *, expected: int, actual: int) -> None:
        super().__init__(
            f"solve {solve_id!r} is at state version {actual}, not {expected}: another process "
            "saved it since this one loaded it; nothing was written. Load the solve again "
            "and continue from its stored state."
        )
        self.solve_id = solve_id
        self.expected = expected
        self.actual = actual


class SolveBusyError(StoreError):
    """Another process holds the lease of the solve (it is running it)."""

    def __init__(self, solve_id: str, *, holder: str, expires_at: datetime) -> None:
        super().__init__(
            f"solve {solve_id!r} is being run by {holder} (its lease expires at "
            f"{expires_at:%Y-%m-%d %H:%M:%S} UTC unless that process renews it); wait for it "
            "to finish, or stop that process and resume after the lease expires"
        )
        self.solve_id = solve_id
        self.holder = holder
        self.expires_at = expires_at


class LeaseLostError(StoreError):
    """The lease of a solve is no longer this holder's: it expired and was taken over."""

    def __init__(self, solve_id: str, *, holder: str, now_held_by: str | None) -> None:
        by = f"now held by {now_held_by}" if now_held_by else "now released"
        super().__init__(
            f"the lease of solve {solve_id!r} is no longer held by {holder} ({by}): it expired "
            "before it was renewed; stop running this solve"
        )
        self.solve_id = solve_id
        self.holder = holder
        self.now_held_by = now_held_by


class StepJournalError(StoreError):
    """A step journal entry out of order: finishing a step never started, or starting or
    finishing one that already finished."""


class ApprovalNotFound(RecordNotFound):
    """No approval has the id asked for."""

    def __init__(self, approval_id: str) -> None:
        super().__init__("approval", approval_id)
        self.approval_id = approval_id


class ApprovalAlreadyDecided(StoreError):
    """The approval was decided (or timed out) before this decision came."""

    def __init__(self, approval_id: str, *, status: str, decided_by: str | None) -> None:
        by = f" by {decided_by}" if decided_by else ""
        super().__init__(
            f"approval {approval_id!r} is already {status}{by}; a decision cannot be changed, "
            "and this one was not recorded"
        )
        self.approval_id = approval_id
        self.status = status
        self.decided_by = decided_by
