"""kill -9 of the server mid-run: the messages it accepted are kept, the runs finish
after a restart, and a tool call with effects is not run twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.server_process import ServerProcess
from tiller.server.run_execution import UNKNOWN_OUTCOME
from tiller.store import Store
from tiller.store.api_keys import new_key_text

KEY = new_key_text()


@pytest.fixture
def server(url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {
        "TILLER_ADMIN_KEY": KEY,
        "TILLER_MODEL": "svc:shell_once",
        "TILLER_TOOLS": '["shell"]',
        "TILLER_APPROVE_EFFECTS": "[]",
    }
    process = ServerProcess(url, tmp_path / "data", env)
    try:
        yield process
    finally:
        process.stop()


def client(server: ServerProcess) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {KEY}"}, timeout=30)


def wait_for(check: object, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_a_run_cut_off_by_kill_9_finishes_after_restart_without_a_second_call(
    server: ServerProcess,
) -> None:
    server.start()
    with client(server) as api:
        session = api.post("/sessions", json={"title": "crash", "tools": ["shell"]}).json()
        workspace = server.data_dir / "workspaces" / session["id"]
        sent = api.post(
            f"/sessions/{session['id']}/messages",
            json={"text": "echo ran >> calls.txt; sleep 30"},
        )
        assert sent.status_code == 202
        run_id = sent.json()["id"]
        wait_for(lambda: (workspace / "calls.txt").exists())
    server.kill()  # while the command sleeps
    server.start()
    with client(server) as api:
        wait_for(lambda: api.get(f"/runs/{run_id}").json()["status"] == "completed")
        history = api.get(f"/sessions/{session['id']}/messages").json()
        events = api.get(f"/runs/{run_id}/events").json()
    assert (workspace / "calls.txt").read_text() == "ran\n"  # run once, not twice
    roles = [m["message"]["role"] for m in history]
    assert roles == ["user", "assistant", "tool_result", "assistant"]
    result = history[2]["message"]
    assert result["is_error"]
    assert result["content"][0]["text"] == UNKNOWN_OUTCOME
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events].count("run_finished") == 1


def test_messages_accepted_before_a_kill_are_all_answered_after_restart(
    server: ServerProcess,
) -> None:
    server.start()
    with client(server) as api:
        sessions = [
            api.post("/sessions", json={"title": f"s{n}", "tools": ["shell"]}).json()["id"]
            for n in range(3)
        ]
        runs = []
        for session_id in sessions:
            answer = api.post(f"/sessions/{session_id}/messages", json={"text": "echo hi"})
            assert answer.status_code == 202
            runs.append(answer.json()["id"])
    server.kill()  # right after the 202s: some runs may not have started
    server.start()
    with client(server) as api:
        for run_id in runs:
            wait_for(lambda r=run_id: api.get(f"/runs/{r}").json()["status"] == "completed")


def test_a_run_stored_but_never_queued_is_queued_at_the_next_start(
    server: ServerProcess,
) -> None:
    server.start()
    with client(server) as api:
        session = api.post("/sessions", json={"title": "lost", "tools": ["shell"]}).json()
        owner = api.get("/me").json()["id"]
    server.kill()

    async def store_a_run() -> str:
        async with await Store.open(server.database) as store:
            message = {"role": "user", "content": [{"type": "text", "text": "echo hi"}]}
            started = await store.runs.start(owner, session["id"], [message])
            return started.run.id

    run_id = asyncio.run(store_a_run())  # as if the process died before queueing it
    server.start()
    with client(server) as api:
        wait_for(lambda: api.get(f"/runs/{run_id}").json()["status"] == "completed")
