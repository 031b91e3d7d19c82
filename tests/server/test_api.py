"""The API end to end on a real server: sessions, messages and runs, streams that
resume, approvals, ownership, authentication."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import sqlalchemy as sa

from tests.server.conftest import Users
from tiller.store import Store
from tiller.store.sealing import is_sealed
from tiller.store.tables import run_events, runs, session_messages

SSE = {"Accept": "text/event-stream"}


async def sse_events(
    client: httpx.AsyncClient, method: str, url: str, **kw: Any
) -> list[dict[str, Any]]:
    """Every event of a stream, until it ends: {"id", "event", "data"}."""
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    headers = {**SSE, **kw.pop("headers", {})}
    async with client.stream(method, url, headers=headers, **kw) as answer:
        assert answer.status_code in (200, 202), await answer.aread()
        assert answer.headers["content-type"].startswith("text/event-stream")
        async for line in answer.aiter_lines():
            if not line:
                if current:
                    events.append(current)
                current = {}
            elif line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("event: "):
                current["event"] = line[7:]
            elif line.startswith("data: "):
                current["data"] = json.loads(line[6:])
    return events


async def new_session(client: httpx.AsyncClient, **body: Any) -> str:
    answer = await client.post("/sessions", json={"title": "Test", **body})
    assert answer.status_code == 201, answer.text
    session_id: str = answer.json()["id"]
    return session_id


async def finished(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    for _ in range(500):
        run: dict[str, Any] = (await client.get(f"/runs/{run_id}")).json()
        if run["status"] in ("completed", "failed", "cancelled"):
            return run
        await asyncio.sleep(0.02)
    raise AssertionError(f"run {run_id} did not finish")


async def test_a_message_starts_a_run_whose_history_and_events_are_kept(users: Users) -> None:
    session_id = await new_session(users.ann)
    answer = await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "hello"})
    assert answer.status_code == 202
    run = await finished(users.ann, answer.json()["id"])
    assert run["status"] == "completed"
    history = (await users.ann.get(f"/sessions/{session_id}/messages")).json()
    assert [(m["seq"], m["message"]["role"]) for m in history] == [(1, "user"), (2, "assistant")]
    assert history[1]["message"]["content"][0]["text"] == "echo: hello"
    events = (await users.ann.get(f"/runs/{run['id']}/events")).json()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "run_finished"


async def test_a_streamed_message_and_a_reconnect_get_every_event_once(users: Users) -> None:
    session_id = await new_session(users.ann)
    streamed = await sse_events(
        users.ann, "POST", f"/sessions/{session_id}/messages", json={"text": "hi there"}
    )
    assert [e["id"] for e in streamed] == list(range(1, len(streamed) + 1))
    assert streamed[0]["event"] == "agent_start"
    assert streamed[-1]["event"] == "run_finished"
    assert any(e["event"] == "message_end" for e in streamed)
    run_id = (await users.ann.get(f"/sessions/{session_id}/runs")).json()[0]["id"]
    cut = len(streamed) // 2
    again = await sse_events(
        users.ann, "GET", f"/runs/{run_id}/events", headers={"Last-Event-ID": str(cut)}
    )
    assert again == streamed[cut:]
    by_query = await sse_events(users.ann, "GET", f"/runs/{run_id}/events?after={cut + 1}")
    assert by_query == streamed[cut + 1 :]


async def test_a_tool_call_waits_in_the_approvals_queue_until_approved(users: Users) -> None:
    session_id = await new_session(users.ann, model="svc:writer", tools=["write_file"])
    sent = await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "remember"})
    run_id = sent.json()["id"]
    pending: list[dict[str, Any]] = []
    for _ in range(500):
        pending = (await users.ann.get("/approvals")).json()
        if pending:
            break
        await asyncio.sleep(0.02)
    (approval,) = pending
    assert approval["run_id"] == run_id
    assert approval["context"]["tool"] == "write_file"
    assert approval["context"]["arguments"] == {"path": "note.txt", "content": "remember"}
    assert (await users.bob.get(f"/approvals/{approval['id']}")).status_code == 404
    metrics = (await users.admin.get("/metrics")).text
    assert "tiller_approvals_waiting 1.0" in metrics
    assert "tiller_runs_executing 0.0" in metrics  # waiting for a person: its place given up
    assert "tiller_runs_executing_limit " in metrics
    decided = await users.ann.post(f"/approvals/{approval['id']}/approve", json={"comment": "ok"})
    assert decided.json()["status"] == "approved"
    run = await finished(users.ann, run_id)
    assert run["status"] == "completed"
    history = (await users.ann.get(f"/sessions/{session_id}/messages")).json()
    assert history[-1]["message"]["content"][0]["text"].startswith("done:")
    again = await users.ann.post(f"/approvals/{approval['id']}/reject", json={})
    assert again.status_code == 409
    audit = (await users.admin.get("/audit?action=approval.approved")).json()
    assert audit[0]["target"] == approval["id"]


async def test_one_user_never_sees_anothers_data(users: Users) -> None:
    session_id = await new_session(users.ann)
    sent = await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "secret"})
    run_id = sent.json()["id"]
    await finished(users.ann, run_id)
    for path in (
        f"/sessions/{session_id}",
        f"/sessions/{session_id}/messages",
        f"/runs/{run_id}",
        f"/runs/{run_id}/events",
    ):
        answer = await users.bob.get(path)
        assert answer.status_code == 404, path
        assert answer.json()["type"] == "urn:tiller:problem:not-found"
    assert (await users.bob.get("/sessions")).json()["items"] == []
    other = await users.bob.post(f"/sessions/{session_id}/messages", json={"text": "x"})
    assert other.status_code == 404
    assert (await users.bob.delete(f"/sessions/{session_id}")).status_code == 404
    assert (await users.ann.get(f"/sessions/{session_id}")).status_code == 200


async def test_a_busy_session_answers_409_unless_the_message_is_queued(users: Users) -> None:
    session_id = await new_session(users.ann, model="svc:writer", tools=["write_file"])
    first = (await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "a"})).json()
    busy = await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "b"})
    assert busy.status_code == 409
    assert busy.json()["run_id"] == first["id"]
    queued = await users.ann.post(
        f"/sessions/{session_id}/messages", json={"text": "c", "multitask": "enqueue"}
    )
    assert queued.status_code == 202
    cancelled = await users.ann.post(f"/runs/{first['id']}/cancel")
    assert cancelled.status_code == 202
    assert (await finished(users.ann, first["id"]))["status"] == "cancelled"


async def test_authentication_and_roles(users: Users) -> None:
    base = str(users.ann.base_url)
    async with httpx.AsyncClient(base_url=base) as nobody:
        answer = await nobody.get("/sessions")
        assert answer.status_code == 401
        assert answer.json()["type"] == "urn:tiller:problem:unauthenticated"
        assert answer.headers["www-authenticate"].startswith("Bearer")
        wrong = await nobody.get("/sessions", headers={"Authorization": "Bearer tlr_x_y"})
        assert wrong.status_code == 401
    viewer = await users.vic.post("/sessions", json={"title": "mine"})
    assert viewer.status_code == 403
    assert viewer.json()["type"] == "urn:tiller:problem:forbidden"
    assert (await users.vic.get("/sessions")).status_code == 200
    assert (await users.ann.get("/users")).status_code == 403
    me = (await users.ann.get("/me")).json()
    assert (me["name"], me["role"], me["via"]) == ("ann", "developer", "key")
    verified = (await users.admin.get("/audit/verify")).json()
    assert verified["ok"]
    assert verified["records"] >= 7  # the users and keys made for this test


async def test_oversized_bodies_and_messages_are_refused_clearly(users: Users) -> None:
    session_id = await new_session(users.ann)
    url = f"/sessions/{session_id}/messages"
    huge = await users.ann.post(url, content=b"{" + b" " * 3_000_000 + b"}")
    assert huge.status_code == 413
    assert huge.json()["type"] == "urn:tiller:problem:payload-too-large"

    async def chunks() -> Any:
        for _ in range(40):
            yield b" " * 100_000

    streamed = await users.ann.post(url, content=chunks())  # no Content-Length
    assert streamed.status_code == 413
    long_text = await users.ann.post(url, json={"text": "x" * 1_000_001})
    assert long_text.status_code == 422
    assert (await users.ann.get("/health")).status_code == 200
    assert (await users.ann.get(f"/sessions/{session_id}/runs")).json() == []


async def test_a_sensitive_session_is_sealed_in_the_database(users: Users, store: Store) -> None:
    session_id = await new_session(users.ann, sensitivity="confidential")
    sent = await users.ann.post(f"/sessions/{session_id}/messages", json={"text": "my pin is 4321"})
    run = await finished(users.ann, sent.json()["id"])
    history = (await users.ann.get(f"/sessions/{session_id}/messages")).json()
    assert history[1]["message"]["content"][0]["text"] == "echo: my pin is 4321"
    events = (await users.ann.get(f"/runs/{run['id']}/events")).json()
    assert any("4321" in json.dumps(e["data"]) for e in events)
    async with store.database.read() as conn:  # what is on disk: no pin anywhere
        stored = [
            *(await conn.execute(sa.select(session_messages.c.message))).all(),
            *(await conn.execute(sa.select(runs.c.input))).all(),
            *(await conn.execute(sa.select(run_events.c.data))).all(),
        ]
    assert stored
    # Every document is sealed, and none holds the pin's words (a sealed token is
    # base64, which has no spaces: "4321" alone can turn up in one by chance).
    assert all(is_sealed(row[0]) for row in stored)
    assert not any("pin is 4321" in json.dumps(row[0]) for row in stored)


async def test_attachments_are_images_of_bounded_number_and_size(users: Users) -> None:
    session_id = await new_session(users.ann)
    url = f"/sessions/{session_id}/messages"
    pixel = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 60).decode()
    one = {"media_type": "image/png", "data": pixel}
    sent = await users.ann.post(url, json={"text": "look", "attachments": [one]})
    assert sent.status_code == 202
    await finished(users.ann, sent.json()["id"])
    history = (await users.ann.get(f"/sessions/{session_id}/messages")).json()
    assert [b["type"] for b in history[0]["message"]["content"]] == ["text", "image"]
    for attachments, why in (
        ([one] * 9, "attachments"),
        ([{"media_type": "image/png", "data": "not base64!"}], "base64"),
        ([{"media_type": "text/html", "data": pixel}], "media_type"),
        (
            [{"media_type": "image/png", "data": base64.b64encode(b"x" * 1_000_001).decode()}],
            "at most",
        ),
    ):
        refused = await users.ann.post(url, json={"text": "x", "attachments": attachments})
        assert refused.status_code in (413, 422), why
        assert why in refused.text or refused.status_code == 413, refused.text
