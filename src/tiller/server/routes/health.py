"""`/health` (the process answers), `/ready` (it can do work), `/metrics`."""

from __future__ import annotations

from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Response
from fastapi.responses import JSONResponse

from tiller.server.metrics import CONTENT_TYPE
from tiller.server.permissions import Permission
from tiller.server.principal import Principal, requires
from tiller.server.services import Services, services

router = APIRouter(tags=["health"])

Svc = Annotated[Services, Depends(services)]
Metrics = Annotated[Principal, Depends(requires(Permission.METRICS_READ))]


@router.get("/health", summary="The process is up")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/ready", summary="The database answers, its schema is current, the model is there")
async def ready(svc: Svc) -> JSONResponse:
    checks: dict[str, Any] = {}
    try:
        revision = await svc.store.current_revision()
        checks["database"] = "ok"
        checks["schema"] = (
            "ok"
            if revision == svc.store.revision
            else (
                f"revision {revision!r}, expected {svc.store.revision!r}: run `tiller db upgrade`"
            )
        )
    except (sa.exc.SQLAlchemyError, OSError) as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
        checks["schema"] = "unknown"
    checks["model"] = "ok" if _model_present(svc) else "missing"
    ok = all(value == "ok" for value in checks.values())
    body = {"status": "ready" if ok else "not ready", "checks": checks}
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(svc: Svc, who: Metrics) -> Response:
    await svc.metrics.refresh(svc.store)
    svc.metrics.admission(svc.engine.admission)
    return Response(svc.metrics.exposition(), media_type=CONTENT_TYPE)


def _model_present(svc: Services) -> bool:
    model = svc.agents.model(svc.settings.model)
    path = getattr(model, "path", None)  # a local model's weights file
    return path is None or path.exists()
