"""The service as an ASGI app: `create_app(settings)`.

The app opens the store when it starts (refusing a database whose schema it does not
know, with the command that upgrades it), resolves the default model, starts the run
engine (which recovers the runs a stopped process left unfinished), and stops them in
order when it stops. Each resource is a router of its own (`tiller.server.routes`);
what the routes share lives in `Services`, on `app.state.services`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from opentelemetry.sdk.trace import TracerProvider

from tiller import __version__
from tiller.models.registry import resolve_model
from tiller.server.body_limit import BodyLimit
from tiller.server.event_log import EventHub
from tiller.server.metrics import Metrics
from tiller.server.principal import Authenticator
from tiller.server.problems import install_problem_handlers, internal_error
from tiller.server.request_ids import RequestIds
from tiller.server.routes import (
    approvals,
    audit,
    health,
    runs,
    session_socket,
    sessions,
    solves,
    users,
)
from tiller.server.run_engine import RunEngine, system_database_url
from tiller.server.services import Services
from tiller.server.session_agents import ApprovalRule, SessionAgents
from tiller.server.session_cleanup import keep_clean
from tiller.server.settings import ServerSettings
from tiller.server.solve_engine import SolveEngine
from tiller.server.tracing import RequestSpans, Tracing, otlp_provider
from tiller.store import Store
from tiller.tools.effects import ToolEffect

AuthenticatorFactory = Callable[[Store, ServerSettings], Authenticator]


def create_app(
    settings: ServerSettings,
    *,
    authenticator: AuthenticatorFactory | None = None,
    tracer_provider: TracerProvider | None = None,
) -> FastAPI:
    """The service with `settings`; it opens its store when it starts serving.
    `authenticator` replaces the API-key and token authentication, `tracer_provider`
    the OTLP exporter of `otlp_endpoint` (for tests)."""
    metrics = Metrics()
    if tracer_provider is None and settings.otlp_endpoint:
        tracer_provider = otlp_provider(settings.otlp_endpoint)
    tracing = Tracing(tracer_provider)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(settings.database, data_dir=settings.data_dir, keys=settings.keys)
        try:
            hub = EventHub(store.run_events.last_seqs)
            agents = SessionAgents(
                settings.data_dir / "workspaces", resolve_model(settings.model), settings.model
            )
            rule = ApprovalRule(
                tools=frozenset(settings.approve_tools),
                effects=frozenset(ToolEffect(e) for e in settings.approve_effects),
            )
            engine = RunEngine(
                store, hub, agents, rule, on_finished=metrics.run_finished, tracing=tracing
            )
            solves_engine = SolveEngine(store, agents, settings.tools, settings.data_dir / "solves")
            make_authenticator = authenticator or _default_authenticator
            app.state.services = Services(
                settings=settings,
                store=store,
                metrics=metrics,
                hub=hub,
                agents=agents,
                engine=engine,
                solves=solves_engine,
                authenticator=make_authenticator(store, settings),
            )
            solves_engine.start()
            await engine.start(system_database_url(store.database.url))
            cleanup = asyncio.create_task(keep_clean(store, settings), name="session cleanup")
            try:
                yield
            finally:
                cleanup.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await cleanup
                await engine.stop(settings.shutdown_grace_s)
                await hub.stop()
                solves_engine.stop()
                tracing.shutdown()
        finally:
            await store.close()

    app = FastAPI(
        title="Tiller",
        version=__version__,
        summary="Agent runs, goal solves and approvals, for many users.",
        lifespan=lifespan,
    )
    install_problem_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestSpans, tracing=tracing)
    app.add_middleware(RequestIds, on_error=internal_error, on_answered=metrics.answered)
    routers = (health, sessions, session_socket, runs, approvals, solves, users, audit)
    for module in routers:
        router = module.router
        app.include_router(router)
    return app


def _default_authenticator(store: Store, settings: ServerSettings) -> Authenticator:
    from tiller.server.auth import KeyAndTokenAuthenticator

    return KeyAndTokenAuthenticator(store, settings)
