"""`/audit`: the audit trail, and whether its chain holds (admins)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel

from tiller.server.event_stream import MAX_NUMBER
from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.services import Services, services

router = APIRouter(prefix="/audit", tags=["audit"])

Auditor = Annotated[Principal, Depends(requires(Permission.AUDIT_READ))]
Svc = Annotated[Services, Depends(services)]


class AuditRecordOut(BaseModel):
    seq: int
    at: datetime
    actor: str
    action: str
    target: str
    details: dict[str, Any]
    hash: str


class VerificationOut(BaseModel):
    ok: bool
    records: int
    broken_at: int | None
    problem: str | None


@router.get("", summary="Audit records, newest first")
async def list_audit(
    who: Auditor,
    svc: Svc,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    before: Annotated[int | None, Query(ge=1, le=MAX_NUMBER)] = None,
    action: str | None = None,
    actor: str | None = None,
) -> list[AuditRecordOut]:
    found = await svc.store.audit.list(limit=limit, before=before, action=action, actor=actor)
    return [AuditRecordOut.model_validate(r, from_attributes=True) for r in found]


@router.get("/verify", summary="Check the chain of the whole trail")
async def verify_audit(who: Auditor, svc: Svc) -> VerificationOut:
    result = await svc.store.audit.verify()
    return VerificationOut(
        ok=result.ok, records=result.records, broken_at=result.broken_at, problem=result.problem
    )
