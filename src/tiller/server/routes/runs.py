"""Messages start runs; `/runs/{id}` follows, streams, steers and cancels them."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, model_validator

from tiller.codec import to_data
from tiller.messages import ImageContent, Message, TextContent, UserMessage
from tiller.server.event_stream import MAX_NUMBER, resume_point, sse_response, wants_stream
from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.problems import Problem
from tiller.server.services import Services, services
from tiller.store.errors import SessionBusyError
from tiller.store.runs import Multitask, Run

router = APIRouter(tags=["runs"])

Reader = Annotated[Principal, Depends(requires(Permission.SESSIONS_READ))]
Writer = Annotated[Principal, Depends(requires(Permission.SESSIONS_WRITE))]
Svc = Annotated[Services, Depends(services)]

STREAM_DOC = (
    "With `Accept: text/event-stream` the answer is the run's events as Server-Sent "
    "Events (see `GET /runs/{run_id}/events`); otherwise 202 with the run's id."
)


# At most this many images a message, each at most this many bytes once decoded.
MAX_ATTACHMENTS = 8
MAX_ATTACHMENT_BYTES = 1_000_000
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class Attachment(BaseModel):
    media_type: str = Field(description=f"One of {', '.join(IMAGE_TYPES)}.")
    data: str = Field(description="The image, base64-encoded.")

    @model_validator(mode="after")
    def _an_image_of_bounded_size(self) -> Attachment:
        if self.media_type not in IMAGE_TYPES:
            raise ValueError(f"media_type must be one of {', '.join(IMAGE_TYPES)}")
        try:
            size = len(base64.b64decode(self.data, validate=True))
        except (binascii.Error, ValueError):
            raise ValueError("data is not base64") from None
        if size > MAX_ATTACHMENT_BYTES:
            raise ValueError(f"an attachment may have at most {MAX_ATTACHMENT_BYTES} bytes")
        return self


class MessageIn(BaseModel):
    text: str = Field(min_length=1, max_length=1_000_000)
    attachments: list[Attachment] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)
    multitask: Multitask = Field(
        Multitask.REJECT,
        description="If the session is running: reject (409), enqueue, or interrupt it.",
    )

    @model_validator(mode="after")
    def _not_blank(self) -> MessageIn:
        if not self.text.strip():
            raise ValueError("text is blank")
        return self


class TextIn(BaseModel):
    text: str = Field(min_length=1, max_length=1_000_000)


class RunOut(BaseModel):
    id: str
    session_id: str
    status: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    stop_reason: str | None
    error: str | None
    usage: dict[str, Any] | None
    events: str

    @classmethod
    def of(cls, run: Run) -> RunOut:
        return cls(
            id=run.id,
            session_id=run.session_id,
            status=run.status.value,
            created_at=run.created_at,
            started_at=run.started_at,
            finished_at=run.finished_at,
            stop_reason=run.stop_reason,
            error=run.error,
            usage=run.usage,
            events=f"/runs/{run.id}/events",
        )


class EventOut(BaseModel):
    seq: int
    type: str
    data: dict[str, Any]
    created_at: datetime


@router.post(
    "/sessions/{session_id}/messages",
    status_code=202,
    summary="Send a message: it starts a run",
    description=STREAM_DOC,
    response_model=RunOut,
)
async def send_message(
    session_id: str, body: MessageIn, request: Request, who: Writer, svc: Svc
) -> Response | RunOut:
    images = [ImageContent(a.data, a.media_type) for a in body.attachments]
    message: Message = UserMessage([TextContent(body.text), *images])
    try:
        started = await svc.store.runs.start(
            who.user_id, session_id, [to_data(message)], body.multitask
        )
    except SessionBusyError as exc:
        raise Problem("conflict", str(exc), run_id=exc.run_id) from None
    if body.multitask is Multitask.INTERRUPT:
        for earlier in started.ahead:
            await svc.engine.cancel(await svc.store.runs.find(earlier))
    await svc.engine.submit(started.run)
    run = started.run
    if wants_stream(request):
        return sse_response(svc.store, svc.hub, run.id, 0, {"X-Run-ID": run.id})
    return RunOut.of(run)


@router.get("/sessions/{session_id}/runs", summary="A session's runs, newest first")
async def session_runs(
    session_id: str, who: Reader, svc: Svc, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> list[RunOut]:
    await svc.store.sessions.get(who.user_id, session_id, archived=True)
    return [RunOut.of(r) for r in await svc.store.runs.list(who.user_id, session_id, limit=limit)]


@router.get("/runs/{run_id}", summary="A run")
async def get_run(run_id: str, who: Reader, svc: Svc) -> RunOut:
    return RunOut.of(await svc.store.runs.get(who.user_id, run_id))


@router.get(
    "/runs/{run_id}/events",
    summary="A run's events, from any point",
    description=(
        "With `Accept: text/event-stream`: Server-Sent Events with `id:` = the event's "
        "number; reconnect with `Last-Event-ID` (or `?after=`) to get exactly the events "
        "missed, then the live ones, until `run_finished`. Otherwise the stored events "
        "after `after`, as JSON."
    ),
    response_model=list[EventOut],
)
async def run_events(
    run_id: str,
    request: Request,
    who: Reader,
    svc: Svc,
    after: Annotated[int | None, Query(ge=0, le=MAX_NUMBER)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> Response | list[EventOut]:
    await svc.store.runs.get(who.user_id, run_id)
    start = resume_point(request, after)
    if wants_stream(request):
        return sse_response(svc.store, svc.hub, run_id, start)
    events = await svc.store.run_events.after(run_id, start, limit=limit)
    return [EventOut.model_validate(e, from_attributes=True) for e in events]


@router.post("/runs/{run_id}/cancel", status_code=202, summary="Cancel a run")
async def cancel_run(run_id: str, who: Writer, svc: Svc) -> RunOut:
    run = await svc.store.runs.get(who.user_id, run_id)
    if not await svc.engine.cancel(run):
        raise Problem("conflict", f"run {run_id!r} has already ended ({run.status.value})")
    return RunOut.of(await svc.store.runs.get(who.user_id, run_id))


@router.post("/runs/{run_id}/steer", status_code=202, summary="Steer a running run")
async def steer_run(run_id: str, body: TextIn, who: Writer, svc: Svc) -> RunOut:
    """The text goes in before the run's next model call; calls of the current turn
    that have not started are skipped."""
    return await _queue_message(run_id, body.text, who, svc, steer=True)


@router.post("/runs/{run_id}/follow-up", status_code=202, summary="Add a follow-up message")
async def follow_up_run(run_id: str, body: TextIn, who: Writer, svc: Svc) -> RunOut:
    """The text is taken up when the run would otherwise end."""
    return await _queue_message(run_id, body.text, who, svc, steer=False)


async def _queue_message(
    run_id: str, text: str, who: Principal, svc: Svc, *, steer: bool
) -> RunOut:
    run = await svc.store.runs.get(who.user_id, run_id)
    controls = svc.engine.controls(run_id)
    if controls is None:
        state = "has ended" if run.status.finished else "is not executing yet"
        raise Problem("conflict", f"run {run_id!r} {state}; send a message to its session")
    (controls.steering if steer else controls.follow_ups).append(UserMessage.of(text))
    return RunOut.of(run)
