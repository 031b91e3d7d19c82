"""The schema revision of a database, checked before the store uses it, and upgrades.

A Tiller database records its revision in the table `tiller_schema_version` (Alembic's
version table under Tiller's own name). Opening a database:

- empty (no tables): the schema is created at the newest revision;
- Tiller's, at the newest revision: used as it is;
- Tiller's, at an older revision: refused unless upgrading (`tiller db upgrade`);
- Tiller's, at a revision this version does not know (a newer Tiller wrote it): refused;
- holding tables but no Tiller revision (another program's): refused, left untouched.

A new revision, after changing `tiller.store.tables`: generate it against a database at
the newest revision with `revision(config(), message, connection)` below (Alembic's
autogenerate), review the file it writes into `migrations/versions/`, and run the
store's tests (they check that the migrations build exactly the tables).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import Connection

from tiller.store.errors import (
    ForeignDatabaseError,
    SchemaOutdatedError,
    SchemaUpgradeError,
    UnknownSchemaError,
)
from tiller.store.tables import VERSION_TABLE

MIGRATIONS = Path(__file__).parent / "migrations"
UPGRADE_COMMAND = "tiller db upgrade"


def config() -> Config:
    """Alembic's configuration for the store's migrations (no alembic.ini)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    # Revision files are modules: a name that starts with a letter.
    cfg.set_main_option("file_template", "rev%%(rev)s_%%(slug)s")
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(config()).get_current_head()
    assert head is not None, "the store's migrations have one head"
    return head


@dataclass(frozen=True, slots=True)
class SchemaState:
    """What a database holds: its tables and Tiller's revision, if any."""

    tables: frozenset[str]
    revision: str | None


def read_schema(connection: Connection) -> SchemaState:
    tables = frozenset(sa.inspect(connection).get_table_names())
    revision = None
    if VERSION_TABLE in tables:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        revision = context.get_current_revision()
    return SchemaState(tables, revision)


def _known(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(config()).get_revision(revision) is not None
    except CommandError:
        return False


def prepare_schema(connection: Connection, *, where: str, upgrade: bool) -> str | None:
    """Bring the schema of the database on `connection` to the newest revision, or raise.

    Creates the schema in an empty database; upgrades an older one only when `upgrade`.
    Returns the revision the database had before (None for a new database). `where`
    names the database in messages."""
    state = read_schema(connection)
    head = head_revision()
    if state.revision is None:
        if state.tables - {VERSION_TABLE}:
            shown = ", ".join(sorted(state.tables)[:5])
            raise ForeignDatabaseError(
                f"{where} is not a Tiller database: it holds another program's tables "
                f"({shown}{', …' if len(state.tables) > 5 else ''}) and no Tiller schema "
                "version; it was left untouched. Give Tiller its own database "
                "(--database URL) or data directory (--data-dir DIR)."
            )
        _upgrade(connection, "head")
        return None
    if state.revision == head:
        return head
    if not _known(state.revision):
        raise UnknownSchemaError(
            f"{where} has Tiller schema revision {state.revision!r}, which this version of "
            f"Tiller does not know (it knows up to {head!r}): a newer Tiller wrote it. "
            "Upgrade Tiller to use it; it was left untouched.",
            revision=state.revision,
        )
    if not upgrade:
        raise SchemaOutdatedError(
            f"{where} has an older Tiller schema (revision {state.revision!r}; this version "
            f"uses {head!r}); upgrade it with `{UPGRADE_COMMAND}` (add the same --database "
            "or --data-dir), then try again",
            current=state.revision,
            head=head,
        )
    _upgrade(connection, "head")
    return state.revision


def _upgrade(connection: Connection, target: str) -> None:
    cfg = config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, target)
    if connection.dialect.name == "sqlite":  # migrations run with foreign keys off
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise SchemaUpgradeError(
                f"the upgrade to {target} left {len(broken)} row(s) whose references are "
                f"broken (first in table {broken[0][0]!r}); it was rolled back"
            )


def downgrade(connection: Connection, target: str) -> None:
    """Take the schema back to revision `target` (for tests of upgrades)."""
    cfg = config()
    cfg.attributes["connection"] = connection
    command.downgrade(cfg, target)


def revision(cfg: Config, message: str, connection: Connection, rev_id: str) -> None:
    """Write a new revision file for the difference between `tables` and the database."""
    cfg.attributes["connection"] = connection
    command.revision(cfg, message=message, autogenerate=True, rev_id=rev_id)
