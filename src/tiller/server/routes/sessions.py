"""`/sessions`: a user's conversations with an agent, and their histories."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, Field, field_validator

from tiller.context.strategies.registry import strategy_names
from tiller.server.event_stream import MAX_NUMBER
from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.problems import Problem
from tiller.server.services import Services, services
from tiller.server.session_agents import FULL_HISTORY
from tiller.store.sessions import Session

router = APIRouter(prefix="/sessions", tags=["sessions"])

Reader = Annotated[Principal, Depends(requires(Permission.SESSIONS_READ))]
Writer = Annotated[Principal, Depends(requires(Permission.SESSIONS_WRITE))]
Svc = Annotated[Services, Depends(services)]

Sensitivity = Literal["normal", "confidential", "restricted"]


def _strategy(value: str) -> str:
    if value != FULL_HISTORY and value not in strategy_names():
        allowed = ", ".join([FULL_HISTORY, *sorted(strategy_names())])
        raise ValueError(f"unknown context strategy {value!r} (allowed: {allowed})")
    return value


class SessionIn(BaseModel):
    title: str = Field("New session", min_length=1, max_length=200)
    model: str | None = Field(None, description="A model name; the server's default if none.")
    system_prompt: str | None = Field(None, max_length=100_000)
    tools: list[str] = Field(default_factory=list, description="From the server's allowed set.")
    context_strategy: str = FULL_HISTORY
    sensitivity: Sensitivity = "normal"

    _check_strategy = field_validator("context_strategy")(lambda cls, v: _strategy(v))


class SessionPatch(BaseModel):
    title: str | None = Field(None, min_length=1, max_length=200)
    model: str | None = None
    system_prompt: str | None = Field(None, max_length=100_000)
    tools: list[str] | None = None
    context_strategy: str | None = None

    @field_validator("context_strategy")
    @classmethod
    def _check_strategy(cls, value: str | None) -> str | None:
        return None if value is None else _strategy(value)


class SessionOut(BaseModel):
    id: str
    title: str
    model: str
    system_prompt: str | None
    tools: list[str]
    context_strategy: str
    sensitivity: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, session: Session) -> SessionOut:
        return cls.model_validate(session, from_attributes=True)


class SessionPage(BaseModel):
    items: list[SessionOut]
    next: str | None = Field(None, description="Pass as `before` for the next page.")


class MessageOut(BaseModel):
    seq: int
    run_id: str | None
    message: dict[str, Any]
    created_at: datetime


@router.post("", status_code=201, summary="Create a session")
async def create_session(body: SessionIn, who: Writer, svc: Svc) -> SessionOut:
    model = body.model or svc.settings.model
    _check_model(svc, model)
    _check_tools(svc, body.tools)
    session = await svc.store.sessions.create(
        who.user_id,
        title=body.title,
        model=model,
        system_prompt=body.system_prompt,
        tools=body.tools,
        context_strategy=body.context_strategy,
        sensitivity=body.sensitivity,
    )
    return SessionOut.of(session)


@router.get("", summary="Your sessions, newest first")
async def list_sessions(
    who: Reader,
    svc: Svc,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: str | None = None,
    title: Annotated[str | None, Query(description="A part of the title.")] = None,
    model: str | None = None,
) -> SessionPage:
    found = await svc.store.sessions.list(
        who.user_id, limit=limit, before=before, title_contains=title, model=model
    )
    return SessionPage(
        items=[SessionOut.of(s) for s in found],
        next=found[-1].id if len(found) == limit else None,
    )


@router.get("/{session_id}", summary="One of your sessions")
async def get_session(session_id: str, who: Reader, svc: Svc) -> SessionOut:
    return SessionOut.of(await svc.store.sessions.get(who.user_id, session_id))


@router.patch("/{session_id}", summary="Change a session's settings")
async def update_session(session_id: str, body: SessionPatch, who: Writer, svc: Svc) -> SessionOut:
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    if "model" in changes:
        _check_model(svc, changes["model"])
    if "tools" in changes:
        _check_tools(svc, changes["tools"])
    return SessionOut.of(await svc.store.sessions.update(who.user_id, session_id, **changes))


@router.delete("/{session_id}", status_code=204, summary="Delete (archive) a session")
async def delete_session(session_id: str, who: Writer, svc: Svc) -> Response:
    await svc.store.sessions.archive(who.user_id, session_id)
    await svc.audit(who, "session.deleted", session_id)
    return Response(status_code=204)


@router.get("/{session_id}/messages", summary="A session's history")
async def session_messages(
    session_id: str,
    who: Reader,
    svc: Svc,
    after: Annotated[
        int, Query(ge=0, le=MAX_NUMBER, description="Only messages numbered above this.")
    ] = 0,
) -> list[MessageOut]:
    await svc.store.sessions.get(who.user_id, session_id)
    history = await svc.store.sessions.history(session_id, after=after)
    return [MessageOut.model_validate(m, from_attributes=True) for m in history]


def _check_tools(svc: Services, tools: list[str]) -> None:
    allowed = svc.settings.tools
    refused = [name for name in tools if name not in allowed]
    if refused:
        raise Problem(
            "validation",
            f"tools not allowed on this server: {', '.join(refused)} "
            f"(allowed: {', '.join(allowed) or 'none'})",
        )


def _check_model(svc: Services, model: str) -> None:
    try:
        svc.agents.model(model)
    except Exception as exc:  # a name no provider knows, a missing key
        raise Problem("validation", f"model {model!r}: {exc}") from None
