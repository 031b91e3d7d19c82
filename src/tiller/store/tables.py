"""The store's tables, all in one `metadata`.

Every table of Tiller lives in this one `MetaData`, so that one Alembic history
(`tiller/store/migrations`) creates and upgrades them all: a package that needs tables
(the service's users, keys, sessions, runs, events, audit) adds them here and adds a
migration. Times are stored in UTC and read back as timezone-aware datetimes; JSON
documents are JSON (JSONB on PostgreSQL).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB

# Constraint names the same on every database, so migrations can name them.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# The table where Alembic records the schema revision; its name marks a Tiller database.
VERSION_TABLE = "tiller_schema_version"


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime stored in UTC (SQLite keeps no zone: stored naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a stored time must carry its time zone: {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def json_document() -> JSON:
    return JSON().with_variant(JSONB(), "postgresql")


def _id() -> Column[Any]:
    return Column("id", String(32), primary_key=True)


def _solve_ref(nullable: bool = False) -> Column[Any]:
    return Column(
        "solve_id", String(32), ForeignKey("solves.id", ondelete="CASCADE"), nullable=nullable
    )


# A solve: its objective and options, its state document (saved after every step, with
# a version for optimistic concurrency) and the lease of the process running it.
solves = Table(
    "solves",
    metadata,
    _id(),
    Column("objective", Text, nullable=False),
    Column("options", json_document(), nullable=False),
    Column("status", String(40), nullable=False),
    Column("state", json_document(), nullable=True),
    Column("version", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("lease_holder", String(200), nullable=True),
    Column("lease_expires_at", UTCDateTime, nullable=True),
    # The service's user who started it (None: started from the command line or Python).
    Column("owner_id", String(32), nullable=True),
    Index(None, "created_at", "id"),
    Index(None, "status", "created_at"),
)

# A step of a solve, written before it runs and again when it has finished.
step_journal = Table(
    "step_journal",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _solve_ref(),
    Column("step_key", String(200), nullable=False),
    Column("tool", String(200), nullable=False),
    Column("effect", String(20), nullable=False),
    Column("arguments", json_document(), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("outcome", json_document(), nullable=True),
    UniqueConstraint("solve_id", "step_key"),
)

# A question to a person: persisted before anyone is asked, decided once.
approvals = Table(
    "approvals",
    metadata,
    _id(),
    _solve_ref(nullable=True),
    Column("kind", String(60), nullable=False),
    Column("event", String(60), nullable=False),
    Column("context", json_document(), nullable=False),
    Column("status", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("due_at", UTCDateTime, nullable=True),
    Column("decided_at", UTCDateTime, nullable=True),
    Column("comment", Text, nullable=True),
    Column("edited_plan", json_document(), nullable=True),
    Column("decided_by", String(200), nullable=True),
    # A question about a service run's tool call: the run, and the user who owns it.
    Column("run_id", String(32), ForeignKey("runs.id", ondelete="CASCADE"), nullable=True),
    Column("owner_id", String(32), nullable=True),
    Index(None, "status", "due_at"),
    Index(None, "solve_id", "created_at"),
    Index(None, "run_id"),
    Index(None, "owner_id", "status"),
)

# What the solver learned in a workspace: traces, tool statistics, examples, root causes.
learning_records = Table(
    "learning_records",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("workspace", String(1000), nullable=False),
    Column("kind", String(40), nullable=False),
    Column("payload", json_document(), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Index(None, "workspace", "kind", "id"),
)


# ── the service: sessions, their messages, runs, their events, their tool calls ──


# A conversation a user has with an agent: its settings; archived instead of deleted.
sessions = Table(
    "sessions",
    metadata,
    _id(),
    Column("owner_id", String(32), nullable=False),
    Column("title", Text, nullable=False),
    Column("model", String(300), nullable=False),
    Column("system_prompt", Text, nullable=True),
    Column("tools", json_document(), nullable=False),
    Column("context_strategy", String(60), nullable=False),
    Column("sensitivity", String(20), nullable=False),
    Column("status", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("archived_at", UTCDateTime, nullable=True),
    # The number of the history's last message: one UPDATE ... RETURNING numbers a turn's
    # messages and serialises the history's writers, instead of a lock, a max() and an update.
    Column("last_seq", Integer, nullable=False, server_default="0"),
    Index(None, "owner_id", "status", "created_at", "id"),
)

# A session's history, one message a row, numbered from 1 in the order they were added.
session_messages = Table(
    "session_messages",
    metadata,
    Column(
        "session_id",
        String(32),
        ForeignKey("sessions.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("run_id", String(32), nullable=True),
    Column("message", json_document(), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# One message to a session and what the agent did with it.
runs = Table(
    "runs",
    metadata,
    _id(),
    Column("session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("owner_id", String(32), nullable=False),
    Column("status", String(20), nullable=False),
    Column("input", json_document(), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("started_at", UTCDateTime, nullable=True),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("stop_reason", String(40), nullable=True),
    Column("error", Text, nullable=True),
    Column("usage", json_document(), nullable=True),
    Column("attempts", Integer, nullable=False),
    Index(None, "session_id", "created_at"),
    Index(None, "owner_id", "created_at", "id"),
    Index(None, "status", "created_at"),
)

# Every event of a run, numbered from 1, stored before it is sent to anyone.
run_events = Table(
    "run_events",
    metadata,
    Column("run_id", String(32), ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("type", String(60), nullable=False),
    Column("data", json_document(), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# A run's tool call, written before it runs and again when it has finished: after a
# crash, a call with effects that started and never finished is not run again blindly.
run_tool_calls = Table(
    "run_tool_calls",
    metadata,
    Column("run_id", String(32), ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("call_id", String(200), primary_key=True),
    Column("tool", String(200), nullable=False),
    Column("effect", String(20), nullable=False),
    Column("arguments", json_document(), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("result", json_document(), nullable=True),
)


# ── the service: users, their API keys, the audit trail, failed authentication ──

# A person or program using the service, with the role that says what they may do.
users = Table(
    "users",
    metadata,
    _id(),
    Column("name", String(200), nullable=False, unique=True),
    Column("role", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("disabled_at", UTCDateTime, nullable=True),
)

# An API key: only a hash of its secret is kept, found by its public prefix.
api_keys = Table(
    "api_keys",
    metadata,
    _id(),
    Column("user_id", String(32), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("prefix", String(40), nullable=False, unique=True),
    Column("secret_hash", String(64), nullable=False),
    Column("name", String(200), nullable=False),
    Column("scopes", json_document(), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=True),
    Column("revoked_at", UTCDateTime, nullable=True),
    Column("last_used_at", UTCDateTime, nullable=True),
    Index(None, "user_id"),
)

# The audit trail: append-only, each record chained to the one before by its hash.
audit_log = Table(
    "audit_log",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("at", UTCDateTime, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("action", String(100), nullable=False),
    Column("target", String(300), nullable=False),
    Column("details", json_document(), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
)

# Failed authentication by key prefix or client address, shared by every replica.
auth_failures = Table(
    "auth_failures",
    metadata,
    Column("source", String(200), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("window_start", UTCDateTime, nullable=False),
    Column("blocked_until", UTCDateTime, nullable=True),
)

# An expired session's history, compressed (gzip of its messages as JSON); deleted, with
# the session, once it is older than the retention.
session_archives = Table(
    "session_archives",
    metadata,
    Column(
        "session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("archived_at", UTCDateTime, nullable=False),
    Column("messages", Integer, nullable=False),
    Column("history", LargeBinary, nullable=False),
)
