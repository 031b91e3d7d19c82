"""A schema revision after the newest one, to test upgrades of an older database."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tiller.store import schema_version

LATER = "9001"

LATER_REVISION = f'''
"""A later revision, for the tests of upgrades."""
import sqlalchemy as sa
from alembic import op

revision = "{LATER}"
down_revision = "{schema_version.head_revision()}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("later_things", sa.Column("id", sa.Integer(), primary_key=True))


def downgrade() -> None:
    op.drop_table("later_things")
'''


def add_later_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, this process's Tiller knows one more revision than it ships."""
    migrations = tmp_path / "later-migrations"
    shutil.copytree(schema_version.MIGRATIONS, migrations)
    (migrations / "versions" / f"rev{LATER}_later.py").write_text(LATER_REVISION)
    monkeypatch.setattr(schema_version, "MIGRATIONS", migrations)
