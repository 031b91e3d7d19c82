"""What the routes share: `Services`, one per app, on `app.state.services`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request

from tiller.server.event_log import EventHub
from tiller.server.metrics import Metrics
from tiller.server.principal import Authenticator, Principal
from tiller.server.run_engine import RunEngine
from tiller.server.session_agents import SessionAgents
from tiller.server.settings import ServerSettings
from tiller.server.solve_engine import SolveEngine
from tiller.store import Store


@dataclass(slots=True)
class Services:
    settings: ServerSettings
    store: Store
    metrics: Metrics
    hub: EventHub
    agents: SessionAgents
    engine: RunEngine
    solves: SolveEngine
    authenticator: Authenticator

    async def audit(
        self, who: Principal | None, action: str, target: str, details: dict[str, Any] | None = None
    ) -> None:
        """Add a record to the audit trail."""
        actor = who.name if who is not None else "system"
        await self.store.audit.append(actor, action, target, details or {})


async def services(request: Request) -> Services:
    """A route's dependency: the app's services. A coroutine, as every dependency is
    here: FastAPI runs a plain function in a worker thread, a trip per request."""
    found: Services = request.app.state.services
    return found
