"""A real PostgreSQL server for the tests, started from Debian's binaries in a temporary
directory: `initdb`, then `pg_ctl start` on a free port on 127.0.0.1 (its unix socket in
the same directory), stopped and deleted at the end. As root, the server runs as the
unprivileged user `nobody` (initdb refuses root)."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

USER = "tiller"
NO_BINARIES = (
    "no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH; "
    "`make system-deps` installs Debian's postgresql package"
)


def binaries() -> Path | None:
    """The directory holding `initdb` and `pg_ctl`, newest version first; None if none."""

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", path.parent.name))

    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for directory in candidates:
        if (directory / "initdb").exists() and (directory / "pg_ctl").exists():
            return directory
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True, slots=True)
class PostgresServer:
    host: str
    port: int
    user: str

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"


@contextmanager
def postgres_server(bin_dir: Path) -> Iterator[PostgresServer]:
    root = Path(tempfile.mkdtemp(prefix="tiller-postgres-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        prefix = ["runuser", "-u", "nobody", "--"]
    data, log = root / "data", root / "server.log"

    def run(*command: str) -> None:
        out = subprocess.run(
            [*prefix, *command], cwd=root, capture_output=True, text=True, timeout=120
        )
        if out.returncode != 0:
            server_log = log.read_text(errors="replace") if log.exists() else ""
            raise RuntimeError(
                f"{' '.join(command)} failed ({out.returncode}):\n{out.stdout}{out.stderr}"
                f"{server_log}"
            )

    port = free_port()
    try:
        run(
            str(bin_dir / "initdb"),
            "-D", str(data),
            "-U", USER,
            "--auth=trust",
            "-E", "UTF8",
            "--locale=C",
            "--no-sync",
        )  # fmt: skip
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "start")
        try:
            yield PostgresServer("127.0.0.1", port, USER)
        finally:
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
