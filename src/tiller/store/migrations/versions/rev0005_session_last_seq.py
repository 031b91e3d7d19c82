"""The number of each session's last message, kept on the session's row.

Revision ID: 0005
Revises: 0004
Created: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "sessions", sa.Column("last_seq", sa.Integer(), nullable=False, server_default="0")
    )
    # Histories already stored: numbered on from their last message (an archived
    # session's messages are in its archive, so it keeps counting from its archive's).
    op.execute(
        "UPDATE sessions SET last_seq = COALESCE("
        "(SELECT MAX(seq) FROM session_messages WHERE session_id = sessions.id), "
        "(SELECT messages FROM session_archives WHERE session_id = sessions.id), 0)"
    )


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("last_seq")
