"""The service's sessions, their messages, runs, run events and run tool calls; owners of
solves and approvals, and approvals of runs.

Revision ID: 0002
Revises: 0001
Created: 2026-11-23
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _json() -> sa.JSON:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _time(name: str, *, nullable: bool) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _ref(table: str, column: str, target: str, *, primary_key: bool = False) -> sa.Column[Any]:
    key = sa.ForeignKey(f"{target}.id", ondelete="CASCADE", name=f"fk_{table}_{column}_{target}")
    return sa.Column(column, sa.String(32), key, nullable=False, primary_key=primary_key)


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("owner_id", sa.String(32), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("model", sa.String(300), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=True),
        sa.Column("tools", _json(), nullable=False),
        sa.Column("context_strategy", sa.String(60), nullable=False),
        sa.Column("sensitivity", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        _time("created_at", nullable=False),
        _time("updated_at", nullable=False),
        _time("archived_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_sessions"),
    )
    op.create_index(
        "ix_sessions_owner_id_status_created_at_id",
        "sessions",
        ["owner_id", "status", "created_at", "id"],
    )
    op.create_table(
        "session_messages",
        _ref("session_messages", "session_id", "sessions"),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("run_id", sa.String(32), nullable=True),
        sa.Column("message", _json(), nullable=False),
        _time("created_at", nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seq", name="pk_session_messages"),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.String(32), nullable=False),
        _ref("runs", "session_id", "sessions"),
        sa.Column("owner_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("input", _json(), nullable=False),
        _time("created_at", nullable=False),
        _time("started_at", nullable=True),
        _time("finished_at", nullable=True),
        sa.Column("stop_reason", sa.String(40), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("usage", _json(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
    )
    op.create_index("ix_runs_session_id_created_at", "runs", ["session_id", "created_at"])
    op.create_index("ix_runs_owner_id_created_at_id", "runs", ["owner_id", "created_at", "id"])
    op.create_index("ix_runs_status_created_at", "runs", ["status", "created_at"])
    op.create_table(
        "run_events",
        _ref("run_events", "run_id", "runs"),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("type", sa.String(60), nullable=False),
        sa.Column("data", _json(), nullable=False),
        _time("created_at", nullable=False),
        sa.PrimaryKeyConstraint("run_id", "seq", name="pk_run_events"),
    )
    op.create_table(
        "run_tool_calls",
        _ref("run_tool_calls", "run_id", "runs"),
        sa.Column("call_id", sa.String(200), nullable=False),
        sa.Column("tool", sa.String(200), nullable=False),
        sa.Column("effect", sa.String(20), nullable=False),
        sa.Column("arguments", _json(), nullable=False),
        _time("started_at", nullable=False),
        _time("finished_at", nullable=True),
        sa.Column("result", _json(), nullable=True),
        sa.PrimaryKeyConstraint("run_id", "call_id", name="pk_run_tool_calls"),
    )
    with op.batch_alter_table("solves") as solves:
        solves.add_column(sa.Column("owner_id", sa.String(32), nullable=True))
    with op.batch_alter_table("approvals") as approvals:
        run = sa.ForeignKey("runs.id", ondelete="CASCADE", name="fk_approvals_run_id_runs")
        approvals.add_column(sa.Column("run_id", sa.String(32), run, nullable=True))
        approvals.add_column(sa.Column("owner_id", sa.String(32), nullable=True))
        approvals.create_index("ix_approvals_run_id", ["run_id"])
        approvals.create_index("ix_approvals_owner_id_status", ["owner_id", "status"])


def downgrade() -> None:
    with op.batch_alter_table("approvals") as approvals:
        approvals.drop_index("ix_approvals_owner_id_status")
        approvals.drop_index("ix_approvals_run_id")
        approvals.drop_constraint("fk_approvals_run_id_runs", type_="foreignkey")
        approvals.drop_column("owner_id")
        approvals.drop_column("run_id")
    with op.batch_alter_table("solves") as solves:
        solves.drop_column("owner_id")
    op.drop_table("run_tool_calls")
    op.drop_table("run_events")
    op.drop_index("ix_runs_status_created_at", table_name="runs")
    op.drop_index("ix_runs_owner_id_created_at_id", table_name="runs")
    op.drop_index("ix_runs_session_id_created_at", table_name="runs")
    op.drop_table("runs")
    op.drop_table("session_messages")
    op.drop_index("ix_sessions_owner_id_status_created_at_id", table_name="sessions")
    op.drop_table("sessions")
