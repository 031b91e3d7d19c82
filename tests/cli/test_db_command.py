"""`tiller db upgrade`: creates or upgrades the database, refuses what is not Tiller's."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.cli.cli_process import tiller
from tests.store.later_revision import LATER, add_later_revision
from tiller.cli import app
from tiller.store import Store, schema_version


def test_a_new_database_gets_the_schema_then_there_is_nothing_to_do(tmp_path: Path) -> None:
    data = tmp_path / "data"
    created = tiller("db", "upgrade", "--data-dir", str(data), cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    assert f"Created the database {data / 'tiller.db'} at schema revision" in created.stdout
    again = tiller("db", "upgrade", "--database", f"sqlite:///{data / 'tiller.db'}", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "nothing to do" in again.stdout


def test_an_older_database_is_upgraded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def create() -> None:
        async with await Store.open(data_dir=tmp_path):
            pass

    asyncio.run(create())  # at the revision this version ships
    shipped = schema_version.head_revision()
    add_later_revision(tmp_path, monkeypatch)
    out = CliRunner().invoke(app, ["db", "upgrade", "--data-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert f"from schema revision {shipped} to {LATER}" in out.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"my notes\n", "is not a SQLite database"),
        (None, "not a Tiller database: it holds another program's tables (invoices)"),
    ],
)
def test_a_file_that_is_not_tillers_is_one_line_and_left_alone(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "tiller.db"
    if content is None:
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
        db.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    out = tiller("db", "upgrade", "--data-dir", str(tmp_path), cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ")
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0, out.stderr
    assert path.read_bytes() == before


def test_help_names_the_options(tmp_path: Path) -> None:
    out = tiller("db", "upgrade", "--help", cwd=tmp_path)
    assert out.returncode == 0
    assert "--database" in out.stdout
    assert "--data-dir" in out.stdout


def test_reseal_rotates_the_key_of_sensitive_sessions(tmp_path: Path) -> None:
    from cryptography.fernet import Fernet

    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()

    async def fill() -> str:
        async with await Store.open(data_dir=tmp_path, keys=[old]) as store:
            session = await store.sessions.create(
                "ann", title="t", model="m", sensitivity="confidential"
            )
            await store.sessions.append_messages(session.id, [{"role": "user"}], run_id=None)
            return session.id

    session_id = asyncio.run(fill())
    env = {"TILLER_ENCRYPTION_KEYS": json.dumps([new, old])}
    done = tiller("db", "reseal", "--data-dir", str(tmp_path), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "Sealed 1 document(s)" in done.stdout

    async def read() -> list[Any]:
        async with await Store.open(data_dir=tmp_path, keys=[new]) as store:
            return [m.message for m in await store.sessions.history(session_id)]

    assert asyncio.run(read()) == [{"role": "user"}]
    bad = tiller("db", "reseal", "--data-dir", str(tmp_path), cwd=tmp_path, env={})
    assert bad.returncode == 2
    assert "TILLER_ENCRYPTION_KEYS must be" in bad.stderr
