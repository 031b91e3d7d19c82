"""`/approvals`: the one queue of what waits for a person — tool calls of runs, and the
solver's checkpoints — with the context needed to decide, and the decisions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.problems import Problem, not_found
from tiller.server.services import Services, services
from tiller.store.approvals import Approval, ApprovalStatus
from tiller.store.errors import ApprovalAlreadyDecided, ApprovalNotFound

router = APIRouter(prefix="/approvals", tags=["approvals"])

Reader = Annotated[Principal, Depends(requires(Permission.SESSIONS_READ))]
Decider = Annotated[Principal, Depends(requires(Permission.APPROVALS_DECIDE))]
Svc = Annotated[Services, Depends(services)]


class ApprovalOut(BaseModel):
    id: str
    kind: str = Field(description="tool_call, checkpoint, step, follow_up")
    event: str
    status: str
    run_id: str | None
    solve_id: str | None
    context: dict[str, Any] = Field(description="What a person needs to decide.")
    created_at: datetime
    due_at: datetime | None
    decided_at: datetime | None
    decided_by: str | None
    comment: str | None

    @classmethod
    def of(cls, approval: Approval) -> ApprovalOut:
        fields = {name: getattr(approval, name) for name in cls.model_fields}
        return cls(**{**fields, "status": approval.status.value})


class DecisionIn(BaseModel):
    comment: str | None = Field(None, max_length=10_000)


@router.get("", summary="Approvals: yours, or everyone's with approvals:any")
async def list_approvals(
    who: Reader,
    svc: Svc,
    status: ApprovalStatus | None = ApprovalStatus.PENDING,
    everyone: Annotated[bool, Query(description="Every user's (needs approvals:any).")] = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[ApprovalOut]:
    if everyone and not who.can(Permission.APPROVALS_ANY):
        raise Problem("forbidden", "listing everyone's approvals needs approvals:any")
    owner = None if everyone else who.user_id
    found = await svc.store.approvals.list(status=status, owner_id=owner, limit=limit)
    return [ApprovalOut.of(a) for a in found]


@router.get("/{approval_id}", summary="One approval, with its context")
async def get_approval(approval_id: str, who: Reader, svc: Svc) -> ApprovalOut:
    return ApprovalOut.of(await _visible(approval_id, who, svc))


@router.post("/{approval_id}/approve", summary="Approve: what waits goes on")
async def approve(approval_id: str, body: DecisionIn, who: Decider, svc: Svc) -> ApprovalOut:
    return await _decide(approval_id, True, body, who, svc)


@router.post("/{approval_id}/reject", summary="Reject: what waits does not happen")
async def reject(approval_id: str, body: DecisionIn, who: Decider, svc: Svc) -> ApprovalOut:
    return await _decide(approval_id, False, body, who, svc)


async def _decide(
    approval_id: str, approved: bool, body: DecisionIn, who: Principal, svc: Services
) -> ApprovalOut:
    await _visible(approval_id, who, svc)
    try:
        decided = await svc.store.approvals.decide(
            approval_id, approved, body.comment, decided_by=who.name
        )
    except ApprovalAlreadyDecided as exc:
        raise Problem("conflict", str(exc)) from None
    if decided.solve_id is not None and decided.kind == "follow_up":
        # The solve ended waiting for this answer: take it up again.
        await svc.solves.submit(decided.solve_id)
    await svc.audit(
        who,
        "approval.approved" if approved else "approval.rejected",
        approval_id,
        {"comment": body.comment, "kind": decided.kind, "run_id": decided.run_id},
    )
    return ApprovalOut.of(decided)


async def _visible(approval_id: str, who: Principal, svc: Services) -> Approval:
    """The approval if it is the principal's (or they may see everyone's), else 404."""
    try:
        approval = await svc.store.approvals.get(approval_id)
    except ApprovalNotFound:
        raise not_found("approval", approval_id) from None
    if approval.owner_id != who.user_id and not who.can(Permission.APPROVALS_ANY):
        raise not_found("approval", approval_id)
    return approval
