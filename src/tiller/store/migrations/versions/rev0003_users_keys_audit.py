"""The service's users, API keys (hashed), audit trail and failed authentication.

Revision ID: 0003
Revises: 0002
Created: 2026-11-24
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _json() -> sa.JSON:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _time(name: str, *, nullable: bool) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        _time("created_at", nullable=False),
        _time("disabled_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column(
            "user_id",
            sa.String(32),
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_api_keys_user_id_users"),
            nullable=False,
        ),
        sa.Column("prefix", sa.String(40), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("scopes", _json(), nullable=True),
        _time("created_at", nullable=False),
        _time("expires_at", nullable=True),
        _time("revoked_at", nullable=True),
        _time("last_used_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.UniqueConstraint("prefix", name="uq_api_keys_prefix"),
    )
    op.create_index("ix_api_keys_user_id", "api_keys", ["user_id"])
    op.create_table(
        "audit_log",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        _time("at", nullable=False),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.Column("action", sa.String(100), nullable=False),
        sa.Column("target", sa.String(300), nullable=False),
        sa.Column("details", _json(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_audit_log"),
    )
    op.create_table(
        "auth_failures",
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        _time("window_start", nullable=False),
        _time("blocked_until", nullable=True),
        sa.PrimaryKeyConstraint("source", name="pk_auth_failures"),
    )


def downgrade() -> None:
    op.drop_table("auth_failures")
    op.drop_table("audit_log")
    op.drop_index("ix_api_keys_user_id", table_name="api_keys")
    op.drop_table("api_keys")
    op.drop_table("users")
