"""The WebSocket of a session: send, the run's events, subscribe from a number, errors
as problems without closing, and another user's session refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tests.server.conftest import Users
from tests.server.test_api import new_session


def ws_url(users: Users, session_id: str, key: str | None = None) -> str:
    base = users.live.base_url.replace("http://", "ws://")
    query = f"?access_token={key}" if key else ""
    return f"{base}/sessions/{session_id}/ws{query}"


async def until_finished(socket: ClientConnection, run_id: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while True:
        frame = json.loads(await socket.recv())
        frames.append(frame)
        if frame.get("event") == "run_finished" and frame.get("run_id") == run_id:
            return frames


async def test_a_message_sent_on_the_socket_streams_its_run(users: Users) -> None:
    session_id = await new_session(users.ann)
    headers = {"Authorization": f"Bearer {users.keys['ann']}"}
    async with websockets.connect(ws_url(users, session_id), additional_headers=headers) as ws:
        await ws.send(json.dumps({"type": "send", "text": "over the socket"}))
        started = json.loads(await ws.recv())
        assert started["type"] == "run"
        run_id = started["run"]["id"]
        frames = await until_finished(ws, run_id)
        seqs = [f["seq"] for f in frames]
        assert seqs == list(range(1, len(seqs) + 1))
        texts = [f["data"] for f in frames if f["event"] == "message_end"]
        assert texts[-1]["message"]["content"][0]["text"] == "echo: over the socket"
        # Resubscribe from a number: exactly the events after it, as on the HTTP stream.
        await ws.send(json.dumps({"type": "subscribe", "run_id": run_id, "after": 3}))
        again = await until_finished(ws, run_id)
        assert again == frames[3:]
        # A bad message is an error, and the socket stays open.
        await ws.send(json.dumps({"type": "dance"}))
        error = json.loads(await ws.recv())
        assert error["type"] == "error"
        assert error["problem"]["type"] == "urn:tiller:problem:bad-request"
        await ws.send(json.dumps({"type": "abort", "run_id": run_id}))
        ended = json.loads(await ws.recv())
        assert ended["problem"]["type"] == "urn:tiller:problem:conflict"


async def test_the_key_may_come_as_a_parameter_and_others_are_refused(users: Users) -> None:
    session_id = await new_session(users.ann)
    async with websockets.connect(ws_url(users, session_id, users.keys["ann"])) as ws:
        await ws.send(json.dumps({"type": "send", "text": "hi"}))
        assert json.loads(await ws.recv())["type"] == "run"
    for key, code in ((users.keys["bob"], 4404), ("tlr_nothing", 4401)):
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            async with websockets.connect(ws_url(users, session_id, key)) as ws:
                await ws.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == code
