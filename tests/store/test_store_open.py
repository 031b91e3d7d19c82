"""Opening the store: where it lives, the schema it creates or refuses, bad files."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from tests.databases import new_postgres_database
from tests.store.later_revision import LATER, add_later_revision
from tests.store.postgres_server import PostgresServer
from tiller.store import (
    DatabaseUnavailableError,
    ForeignDatabaseError,
    InvalidDatabaseURLError,
    NotADatabaseError,
    SchemaOutdatedError,
    Store,
    UnknownSchemaError,
    default_data_dir,
    schema_version,
)
from tiller.store.database import create_engine
from tiller.store.locations import database_url
from tiller.store.tables import VERSION_TABLE, metadata


def test_the_default_database_is_a_file_in_the_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "tiller"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "tiller"
    assert database_url(data_dir=tmp_path).database == str(tmp_path / "tiller.db")
    assert database_url("postgresql://u:p@h/db").drivername == "postgresql+asyncpg"
    assert database_url("sqlite:///x.db").database == str(Path("x.db").absolute())


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "does not support 'mysql'"),
        ("sqlite://", "names no file"),
        ("not a url", "is not a database URL"),
    ],
)
async def test_an_unsupported_url_is_refused(url: str, message: str) -> None:
    with pytest.raises(InvalidDatabaseURLError, match=message):
        await Store.open(url)


async def test_a_new_data_directory_gets_a_database_in_wal_mode(tmp_path: Path) -> None:
    async with await Store.open(data_dir=tmp_path / "new" / "dir") as store:
        assert store.url == str(tmp_path / "new" / "dir" / "tiller.db")
        assert store.revision_before is None
        await store.solves.create("x", {})
    with sqlite3.connect(tmp_path / "new" / "dir" / "tiller.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    async with await Store.open(data_dir=tmp_path / "new" / "dir") as store:
        assert store.revision_before == store.revision
        assert len(await store.solves.list()) == 1


async def test_the_migrations_build_exactly_the_tables(store: Store) -> None:
    async with store.database.engine.connect() as conn:
        differences = await conn.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(
                    sync, opts={"compare_type": True, "version_table": VERSION_TABLE}
                ),
                metadata,
            )
        )
    assert differences == []


async def test_processes_opening_a_new_database_at_once_all_get_the_schema(url: str) -> None:
    stores = await asyncio.gather(*(Store.open(url) for _ in range(4)))
    try:
        assert sorted(str(s.revision_before) for s in stores).count("None") == 1
        await stores[3].solves.create("x", {})
        assert len(await stores[0].solves.list()) == 1
    finally:
        for store in stores:
            await store.close()


def _untouched(path: Path, content: bytes) -> None:
    assert path.read_bytes() == content
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


async def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "tiller.db"
    content = b"these are my notes, not a database\n" * 100
    path.write_bytes(content)
    with pytest.raises(NotADatabaseError, match=r"is not a SQLite database .* left untouched"):
        await Store.open(data_dir=tmp_path)
    _untouched(path, content)


async def test_a_damaged_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "tiller.db"
    content = b"SQLite format 3\x00" + bytes(range(256)) * 40
    path.write_bytes(content)
    with pytest.raises(NotADatabaseError, match="damaged or not a SQLite database"):
        await Store.open(data_dir=tmp_path)
    _untouched(path, content)


async def test_another_programs_sqlite_database_is_refused_and_left_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tiller.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO customers (name) VALUES ('Ada')")
    db.close()
    content = path.read_bytes()
    with pytest.raises(ForeignDatabaseError, match=r"not a Tiller database.*\(customers\)"):
        await Store.open(data_dir=tmp_path)
    _untouched(path, content)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    db.close()


async def test_another_programs_postgres_database_is_refused(postgres: PostgresServer) -> None:
    url = await new_postgres_database(postgres)
    engine = create_engine(database_url(url))
    try:
        async with engine.begin() as conn:
            await conn.exec_driver_sql("CREATE TABLE customers (id serial PRIMARY KEY)")
        with pytest.raises(ForeignDatabaseError, match="customers"):
            await Store.open(url)
        async with engine.connect() as conn:
            tables = await conn.exec_driver_sql(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
            assert tables.all() == [("customers",)]
    finally:
        await engine.dispose()


async def test_a_newer_tillers_schema_is_refused_and_left_alone(url: str) -> None:
    async with await Store.open(url) as store:
        await store.solves.create("kept", {})
        async with store.database.write() as conn:
            await conn.exec_driver_sql(f"UPDATE {VERSION_TABLE} SET version_num = 'f00d'")
    with pytest.raises(UnknownSchemaError, match=r"revision 'f00d'.*Upgrade Tiller"):
        await Store.open(url)
    with pytest.raises(UnknownSchemaError):
        await Store.open(url, upgrade=True)
    engine = create_engine(database_url(url))
    async with engine.connect() as conn:
        assert (await conn.exec_driver_sql(f"SELECT version_num FROM {VERSION_TABLE}")).all() == [
            ("f00d",)
        ]
        assert (await conn.exec_driver_sql("SELECT objective FROM solves")).all() == [("kept",)]
    await engine.dispose()


@pytest.fixture
def later_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_later_revision(tmp_path, monkeypatch)


async def test_an_older_schema_is_upgraded_only_when_asked(
    url: str, request: pytest.FixtureRequest
) -> None:
    async with await Store.open(url) as store:
        solve_id = await store.solves.create("kept", {"a": 1})
    shipped = schema_version.head_revision()
    request.getfixturevalue("later_revision")
    with pytest.raises(SchemaOutdatedError, match="upgrade it with `tiller db upgrade`") as raised:
        await Store.open(url)
    assert (raised.value.current, raised.value.head) == (shipped, LATER)
    async with await Store.open(url, upgrade=True) as store:
        assert (store.revision_before, store.revision) == (shipped, LATER)
        assert (await store.solves.load(solve_id)).options == {"a": 1}
    async with await Store.open(url) as store:
        assert store.revision_before == LATER


async def test_the_solver_tables_of_revision_0001_upgrade_with_their_rows(url: str) -> None:
    async with await Store.open(url) as store:
        solve_id = await store.solves.create("kept", {"a": 1})
        approval_id = await store.approvals.request(solve_id, "checkpoint", "plan_created", {})
    # As migrations do: with foreign keys off, or SQLite's copy-and-drop of a table
    # would delete the rows that refer to it.
    engine = create_engine(database_url(url), foreign_keys=False)
    try:
        async with engine.execution_options(tiller_write=True).begin() as conn:
            await conn.run_sync(schema_version.downgrade, "0001")
    finally:
        await engine.dispose()
    with pytest.raises(SchemaOutdatedError):
        await Store.open(url)
    async with await Store.open(url, upgrade=True) as store:
        assert store.revision_before == "0001"
        solve = await store.solves.load(solve_id)
        assert (solve.objective, solve.options, solve.owner_id) == ("kept", {"a": 1}, None)
        approval = await store.approvals.get(approval_id)
        assert (approval.solve_id, approval.run_id, approval.owner_id) == (solve_id, None, None)


async def test_an_unreachable_server_is_one_clear_error() -> None:
    with pytest.raises(DatabaseUnavailableError, match="check that the server is running"):
        await Store.open("postgresql://nobody@127.0.0.1:1/none")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_an_unreadable_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "tiller.db"
    path.write_bytes(b"")
    path.chmod(0)
    with pytest.raises(DatabaseUnavailableError, match="cannot read"):
        await Store.open(data_dir=tmp_path)
