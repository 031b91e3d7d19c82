"""Compressed archives of expired sessions' histories.

Revision ID: 0004
Revises: 0003
Created: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_archives",
        sa.Column(
            "session_id",
            sa.String(32),
            sa.ForeignKey(
                "sessions.id", ondelete="CASCADE", name="fk_session_archives_session_id_sessions"
            ),
            nullable=False,
        ),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("messages", sa.Integer(), nullable=False),
        sa.Column("history", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", name="pk_session_archives"),
    )


def downgrade() -> None:
    op.drop_table("session_archives")
