"""Databases for the tests, registered for every test directory (`pytest_plugins` in
tests/conftest.py): `url` is a new empty database of each kind, SQLite and a real
PostgreSQL server started once for the session."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from tests.store.postgres_server import NO_BINARIES, PostgresServer, binaries, postgres_server

_names = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip(NO_BINARIES)
    with postgres_server(bin_dir) as server:
        yield server


async def new_postgres_database(server: PostgresServer) -> str:
    """A new empty database on `server`; its URL."""
    name = f"test_{next(_names)}"
    engine = create_async_engine(
        server.url("postgres").replace("postgresql:", "postgresql+asyncpg:"),
        isolation_level="AUTOCOMMIT",
    )
    try:
        async with engine.connect() as conn:
            await conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        await engine.dispose()
    return server.url(name)


@pytest.fixture(params=["sqlite", "postgresql"])
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new empty database, of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tiller.db'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return await new_postgres_database(server)
