"""`/solves`: the goal solver, served — start, list, read, resume, cancel."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.problems import Problem, not_found
from tiller.server.services import Services, services
from tiller.solve.bounds import ResourceBounds
from tiller.solve.final_status import final_status
from tiller.solve.state import SolveState
from tiller.store.errors import SolveNotFound
from tiller.store.solves import SolveRecord, SolveSummary

router = APIRouter(prefix="/solves", tags=["solves"])

Reader = Annotated[Principal, Depends(requires(Permission.SOLVES_READ))]
Writer = Annotated[Principal, Depends(requires(Permission.SOLVES_WRITE))]
Svc = Annotated[Services, Depends(services)]

FINISHED = {"done", "failed", "stopped"}


class SolveIn(BaseModel):
    objective: str = Field(min_length=1, max_length=20_000)
    model: str | None = Field(None, description="The server's default model if none.")
    auto: bool = Field(False, description="Gather missing information by doing, not asking.")
    max_steps: int | None = Field(None, ge=1, le=10_000)
    max_cost_usd: float | None = Field(None, ge=0)
    max_wall_time_s: float | None = Field(None, gt=0)


class SolveOut(BaseModel):
    id: str
    objective: str
    status: str
    created_at: datetime
    updated_at: datetime
    final: dict[str, Any] | None = Field(
        None, description="The goal tree with each goal's status and evidence, costs, timings."
    )


def _out(record: SolveSummary, state: dict[str, Any] | None = None) -> SolveOut:
    final = None
    if state is not None:
        final = final_status(record.id, SolveState.from_data(state)).to_data()
    return SolveOut(
        id=record.id,
        objective=record.objective,
        status=record.status,
        created_at=record.created_at,
        updated_at=record.updated_at,
        final=final,
    )


@router.post("", status_code=202, summary="Start a solve")
async def start_solve(body: SolveIn, who: Writer, svc: Svc) -> SolveOut:
    model = body.model or svc.settings.model
    try:
        svc.agents.model(model)
    except Exception as exc:
        raise Problem("validation", f"model {model!r}: {exc}") from None
    bounds = ResourceBounds(
        max_steps=body.max_steps,
        max_cost_usd=body.max_cost_usd,
        max_wall_time_s=body.max_wall_time_s,
    )
    options = {
        "objectives": [body.objective],
        "bounds": bounds.to_data(),
        "settings": {"model": model, "auto": body.auto},
    }
    solve_id = await svc.store.solves.create(body.objective, options, owner_id=who.user_id)
    await svc.solves.submit(solve_id)
    return _out(await svc.store.solves.load(solve_id))


@router.get("", summary="Your solves, newest first")
async def list_solves(
    who: Reader,
    svc: Svc,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    status: str | None = None,
) -> list[SolveOut]:
    found = await svc.store.solves.list(status=status, limit=limit, owner_id=who.user_id)
    return [_out(s) for s in found]


@router.get("/{solve_id}", summary="A solve: its goal tree, statuses and costs")
async def get_solve(solve_id: str, who: Reader, svc: Svc) -> SolveOut:
    record = await _own(solve_id, who, svc)
    return _out(record, record.state)


@router.post("/{solve_id}/resume", status_code=202, summary="Go on with a solve")
async def resume_solve(solve_id: str, who: Writer, svc: Svc) -> SolveOut:
    record = await _own(solve_id, who, svc)
    if record.status == "done":
        raise Problem("conflict", f"solve {solve_id!r} is done")
    await svc.solves.submit(solve_id)
    return _out(record, record.state)


@router.post("/{solve_id}/cancel", status_code=202, summary="Cancel a solve")
async def cancel_solve(solve_id: str, who: Writer, svc: Svc) -> SolveOut:
    record = await _own(solve_id, who, svc)
    if not svc.solves.cancel(solve_id):
        if record.status in FINISHED:
            raise Problem("conflict", f"solve {solve_id!r} has ended ({record.status})")
        await svc.store.solves.set_status(solve_id, "stopped")
    await svc.audit(who, "solve.cancelled", solve_id)
    return _out(await svc.store.solves.load(solve_id))


async def _own(solve_id: str, who: Principal, svc: Services) -> SolveRecord:
    try:
        record = await svc.store.solves.load(solve_id)
    except SolveNotFound:
        raise not_found("solve", solve_id) from None
    if record.owner_id != who.user_id:
        raise not_found("solve", solve_id)
    return record
