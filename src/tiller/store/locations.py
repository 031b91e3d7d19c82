"""Where the store lives: the default data directory and the database URL.

No URL means the SQLite file `tiller.db` in the data directory: `data_dir` when given,
else `$XDG_DATA_HOME/tiller` or `~/.local/share/tiller` (on macOS
`~/Library/Application Support/tiller`, on Windows `%LOCALAPPDATA%\\tiller`).
URLs: `sqlite:///PATH` or `sqlite+aiosqlite:///PATH`, and `postgresql://…` (also
`postgres://…` and `postgresql+asyncpg://…`), which the asyncpg driver serves.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from tiller.store.errors import InvalidDatabaseURLError

DATABASE_FILE = "tiller.db"


def default_data_dir() -> Path:
    """The user's data directory for Tiller (created when the store first opens)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "tiller"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "tiller"
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "tiller"


def database_url(url: str | None = None, *, data_dir: Path | None = None) -> URL:
    """The SQLAlchemy URL (with its async driver) of `url`, or of the default SQLite file."""
    if url is None:
        path = (data_dir or default_data_dir()).expanduser() / DATABASE_FILE
        return URL.create("sqlite+aiosqlite", database=str(path.absolute()))
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise InvalidDatabaseURLError(
            f"{url!r} is not a database URL; use sqlite:///PATH or "
            "postgresql://USER:PASSWORD@HOST/DATABASE"
        ) from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend == "sqlite" and driver in ("", "aiosqlite", "pysqlite"):
        if not parsed.database or parsed.database == ":memory:":
            raise InvalidDatabaseURLError(
                f"{url!r} names no file: the store keeps solves in a SQLite file "
                "(sqlite:///PATH) or a PostgreSQL database"
            )
        path = Path(parsed.database).expanduser().absolute()
        return parsed.set(drivername="sqlite+aiosqlite", database=str(path))
    if backend in ("postgresql", "postgres") and driver in ("", "asyncpg", "psycopg2", "psycopg"):
        return parsed.set(drivername="postgresql+asyncpg")
    raise InvalidDatabaseURLError(
        f"the store does not support {parsed.drivername!r} databases; use sqlite:///PATH "
        "or postgresql://USER:PASSWORD@HOST/DATABASE"
    )


def display_url(url: URL) -> str:
    """The URL as a person may see it (password hidden); a SQLite file as its path."""
    if url.get_backend_name() == "sqlite":
        return str(url.database)
    return url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
