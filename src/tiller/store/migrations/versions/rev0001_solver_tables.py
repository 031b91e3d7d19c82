"""The solver's tables: solves (state and lease), the step journal, approvals, learning.

Revision ID: 0001
Revises:
Created: 2026-11-23
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _json() -> sa.JSON:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _time(name: str, *, nullable: bool) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _solve_ref(table: str, *, nullable: bool) -> sa.Column[Any]:
    solve = sa.ForeignKey("solves.id", ondelete="CASCADE", name=f"fk_{table}_solve_id_solves")
    return sa.Column("solve_id", sa.String(32), solve, nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "solves",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("objective", sa.Text(), nullable=False),
        sa.Column("options", _json(), nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("state", _json(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        _time("created_at", nullable=False),
        _time("updated_at", nullable=False),
        sa.Column("lease_holder", sa.String(200), nullable=True),
        _time("lease_expires_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_solves"),
    )
    op.create_index("ix_solves_created_at_id", "solves", ["created_at", "id"])
    op.create_index("ix_solves_status_created_at", "solves", ["status", "created_at"])

    op.create_table(
        "step_journal",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        _solve_ref("step_journal", nullable=False),
        sa.Column("step_key", sa.String(200), nullable=False),
        sa.Column("tool", sa.String(200), nullable=False),
        sa.Column("effect", sa.String(20), nullable=False),
        sa.Column("arguments", _json(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        _time("started_at", nullable=False),
        _time("finished_at", nullable=True),
        sa.Column("outcome", _json(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_step_journal"),
        sa.UniqueConstraint("solve_id", "step_key", name="uq_step_journal_solve_id_step_key"),
    )

    op.create_table(
        "approvals",
        sa.Column("id", sa.String(32), nullable=False),
        _solve_ref("approvals", nullable=True),
        sa.Column("kind", sa.String(60), nullable=False),
        sa.Column("event", sa.String(60), nullable=False),
        sa.Column("context", _json(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        _time("created_at", nullable=False),
        _time("due_at", nullable=True),
        _time("decided_at", nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("edited_plan", _json(), nullable=True),
        sa.Column("decided_by", sa.String(200), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_approvals"),
    )
    op.create_index("ix_approvals_status_due_at", "approvals", ["status", "due_at"])
    op.create_index("ix_approvals_solve_id_created_at", "approvals", ["solve_id", "created_at"])

    op.create_table(
        "learning_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("workspace", sa.String(1000), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("payload", _json(), nullable=False),
        _time("created_at", nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_learning_records"),
    )
    op.create_index(
        "ix_learning_records_workspace_kind_id", "learning_records", ["workspace", "kind", "id"]
    )


def downgrade() -> None:
    op.drop_table("learning_records")
    op.drop_table("approvals")
    op.drop_table("step_journal")
    op.drop_table("solves")
