"""`tiller serve` as a real process: it checks before it listens, serves, and stops on
SIGTERM."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx

from tests.cli.cli_process import clean_env, tiller, tiller_command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_bad_setting_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    done = tiller("serve", "--port", "0", "--data-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: setting port (TILLER_PORT):")
    assert len(done.stderr.strip().splitlines()) == 1
    env = {"TILLER_LOG_LEVEL": "chatty"}
    done = tiller("serve", "--data-dir", str(tmp_path), cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "setting log_level (TILLER_LOG_LEVEL)" in done.stderr


def test_a_database_it_does_not_know_stops_it_before_it_listens(tmp_path: Path) -> None:
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    done = tiller("serve", "--database", f"sqlite:///{foreign}", cwd=tmp_path)
    assert done.returncode == 2
    assert "is not a Tiller database" in done.stderr


def test_it_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [*tiller_command(), "serve", "--port", str(port), "--data-dir", str(tmp_path)],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        answer = _wait_for(f"http://127.0.0.1:{port}/health", process)
        assert answer.json() == {"status": "ok"}
        docs = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10)
        assert docs.json()["info"]["title"] == "Tiller"
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    # It shut down in order, then ends by the signal, as process managers expect.
    assert process.returncode == -signal.SIGTERM, err
    assert "Application shutdown complete" in err
    assert f"http://127.0.0.1:{port}" in out
    assert (tmp_path / "tiller.db").exists()


def _wait_for(url: str, process: subprocess.Popen[str]) -> httpx.Response:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {process.communicate()[1]}")
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("the server did not answer in 60 s")
