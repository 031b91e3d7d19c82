"""SIGTERM: the server stops accepting, lets runs reach a saved point within the grace
time, and exits; a run still going then finishes after the next start."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server.server_process import ServerProcess
from tests.server.test_crash import KEY, client, wait_for


def serve(url: str, tmp_path: Path, grace: float) -> ServerProcess:
    env = {
        "TILLER_ADMIN_KEY": KEY,
        "TILLER_MODEL": "svc:shell_once",
        "TILLER_TOOLS": '["shell"]',
        "TILLER_APPROVE_EFFECTS": "[]",
        "TILLER_SHUTDOWN_GRACE_S": str(grace),
    }
    return ServerProcess(url, tmp_path / "data", env)


def start_run(server: ServerProcess, command: str) -> tuple[str, Path]:
    with client(server) as api:
        session = api.post("/sessions", json={"title": "t", "tools": ["shell"]}).json()
        sent = api.post(f"/sessions/{session['id']}/messages", json={"text": command})
        run_id: str = sent.json()["id"]
        workspace = server.data_dir / "workspaces" / session["id"]
        wait_for(lambda: (workspace / "started.txt").exists())
    return run_id, workspace


def test_sigterm_lets_a_short_run_finish_before_the_server_exits(url: str, tmp_path: Path) -> None:
    server = serve(url, tmp_path, grace=20)
    try:
        server.start()
        run_id, _ = start_run(server, "echo go > started.txt; sleep 2")
        took = server.terminate()
        assert took < 20
        server.start()
        with client(server) as api:
            run = api.get(f"/runs/{run_id}").json()
            assert run["status"] == "completed"
            history = api.get(f"/sessions/{run['session_id']}/messages").json()
            assert history[2]["message"]["is_error"] is False  # it ran to its end
    finally:
        server.stop()


def test_a_run_longer_than_the_grace_time_goes_on_after_the_next_start(
    url: str, tmp_path: Path
) -> None:
    server = serve(url, tmp_path, grace=1)
    try:
        server.start()
        run_id, _ = start_run(server, "echo go > started.txt; sleep 60")
        assert server.terminate() < 30
        try:
            httpx.get(f"{server.url}/health", timeout=1)
            raise AssertionError("the server still answers after SIGTERM")
        except httpx.TransportError:
            pass
        server.start()
        with client(server) as api:
            wait_for(lambda: api.get(f"/runs/{run_id}").json()["status"] == "completed")
    finally:
        server.stop()
