"""`/sessions/{id}/ws`: one WebSocket per session, carrying what the HTTP routes do.

The client sends JSON messages:

- `{"type": "send", "text": "...", "multitask": "reject"}`: a message, which starts a run
  (answered `{"type": "run", "run": {...}}`, and the run's events follow);
- `{"type": "subscribe", "run_id": "...", "after": 12}`: a run's events after event 12,
  then the live ones (after a reconnect, say);
- `{"type": "steer", "run_id": "...", "text": "..."}`, `{"type": "follow_up", ...}`;
- `{"type": "abort", "run_id": "..."}`: cancel the run.

The server sends each event as `{"type": "event", "run_id", "seq", "event", "data"}`, the
same numbered events as the SSE stream, and an error as `{"type": "error", "problem":
{...}}` (the problem details of the HTTP routes), without closing the socket. The key
goes in the `Authorization` header, or, from a browser, as `?access_token=`; a socket
that is refused is closed with code 4000 + the HTTP status it would have had: 4401
without a valid key, 4403 without the permission, 4404 for a session that is not the
user's, 4429 while failed attempts are blocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field, ValidationError

from tiller.codec import to_data
from tiller.messages import UserMessage
from tiller.server.event_stream import MAX_NUMBER, run_events
from tiller.server.permissions import Permission
from tiller.server.principal import Principal, principal_of
from tiller.server.problems import KINDS, Problem, problem_type
from tiller.server.services import Services
from tiller.store.errors import RecordNotFound, SessionBusyError
from tiller.store.runs import Multitask

router = APIRouter(tags=["sessions"])


class Send(BaseModel):
    text: str = Field(min_length=1, max_length=1_000_000)
    multitask: Multitask = Multitask.REJECT


@router.websocket("/sessions/{session_id}/ws")
async def session_socket(websocket: WebSocket, session_id: str) -> None:
    svc: Services = websocket.app.state.services
    await websocket.accept()  # then a refusal can say why: close code 4401 or 4404
    try:
        who = await principal_of(websocket)
        if not who.can(Permission.SESSIONS_READ):
            raise Problem("forbidden", "this needs the permission sessions:read")
        await svc.store.sessions.get(who.user_id, session_id)
    except (Problem, RecordNotFound) as exc:
        await websocket.close(code=4000 + KINDS[_kind(exc)].status)
        return
    socket = _Socket(websocket, svc, who, session_id)
    try:
        await socket.serve()
    finally:
        await socket.close()


class _Socket:
    def __init__(self, websocket: WebSocket, svc: Services, who: Principal, session: str) -> None:
        self.websocket = websocket
        self.svc = svc
        self.who = who
        self.session_id = session
        self.lock = asyncio.Lock()  # one frame at a time on the socket
        self.streams: dict[str, asyncio.Task[None]] = {}

    async def serve(self) -> None:
        while True:
            try:
                message = await self.websocket.receive_json()
            except WebSocketDisconnect:
                return
            except ValueError:
                await self.error(Problem("bad-request", "a message must be a JSON object"))
                continue
            try:
                await self.handle(message)
            except Problem as problem:
                await self.error(problem)
            except RecordNotFound as exc:
                await self.error(Problem("not-found", str(exc)))
            except ValidationError as exc:
                await self.error(Problem("validation", str(exc.errors()[0]["msg"])))

    async def handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            raise Problem("bad-request", "a message must be a JSON object")
        kind = message.get("type")
        run_id = str(message.get("run_id", ""))
        if kind == "send":
            await self.send(Send.model_validate(message))
        elif kind == "subscribe":
            await self.svc.store.runs.get(self.who.user_id, run_id)
            self.subscribe(run_id, _number(message.get("after")))
        elif kind in ("steer", "follow_up", "abort"):
            self.require(Permission.SESSIONS_WRITE)
            await self.control(kind, run_id, str(message.get("text", "")))
        else:
            raise Problem("bad-request", f"unknown message type {kind!r}")

    async def send(self, body: Send) -> None:
        self.require(Permission.SESSIONS_WRITE)
        store = self.svc.store
        message = to_data(UserMessage.of(body.text))
        try:
            started = await store.runs.start(
                self.who.user_id, self.session_id, [message], body.multitask
            )
        except SessionBusyError as exc:
            raise Problem("conflict", str(exc), run_id=exc.run_id) from None
        if body.multitask is Multitask.INTERRUPT:
            for earlier in started.ahead:
                await self.svc.engine.cancel(await store.runs.find(earlier))
        await self.svc.engine.submit(started.run)
        run = started.run
        await self.write({"type": "run", "run": {"id": run.id, "status": run.status.value}})
        self.subscribe(run.id, 0)

    async def control(self, kind: str, run_id: str, text: str) -> None:
        run = await self.svc.store.runs.get(self.who.user_id, run_id)
        if kind == "abort":
            if not await self.svc.engine.cancel(run):
                raise Problem("conflict", f"run {run_id!r} has already ended")
            return
        controls = self.svc.engine.controls(run_id)
        if controls is None:
            raise Problem("conflict", f"run {run_id!r} is not executing")
        if not text.strip():
            raise Problem("validation", "text is blank")
        queue = controls.steering if kind == "steer" else controls.follow_ups
        queue.append(UserMessage.of(text))

    def subscribe(self, run_id: str, after: int) -> None:
        earlier = self.streams.pop(run_id, None)
        if earlier is not None:
            earlier.cancel()
        self.streams[run_id] = asyncio.create_task(self.stream(run_id, after))

    async def stream(self, run_id: str, after: int) -> None:
        async for event in run_events(self.svc.store, self.svc.hub, run_id, after):
            assert event is not None
            head = json.dumps(
                {"type": "event", "run_id": run_id, "seq": event.seq, "event": event.type},
                ensure_ascii=False,
                separators=(",", ":"),
            )
            # The event's data goes in as the JSON text it was stored as.
            await self.write_text(f'{head[:-1]},"data":{event.text}}}')

    def require(self, permission: Permission) -> None:
        if not self.who.can(permission):
            raise Problem("forbidden", f"this needs the permission {permission.value}")

    async def error(self, problem: Problem) -> None:
        kind = KINDS[problem.kind]
        body = {
            "type": problem_type(problem.kind),
            "title": kind.title,
            "status": kind.status,
            "detail": problem.detail,
            **problem.extra,
        }
        await self.write({"type": "error", "problem": body})

    async def write(self, frame: dict[str, Any]) -> None:
        await self.write_text(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))

    async def write_text(self, frame: str) -> None:
        async with self.lock:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await self.websocket.send_text(frame)

    async def close(self) -> None:
        for task in self.streams.values():
            task.cancel()
        for task in self.streams.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _number(value: Any) -> int:
    """An event number a client sent, checked (a `Problem` when it is not one)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NUMBER:
        raise Problem("validation", f"after must be an event number from 0 to {MAX_NUMBER}")
    return value


def _kind(exc: Exception) -> str:
    return exc.kind if isinstance(exc, Problem) else "not-found"
