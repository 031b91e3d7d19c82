"""The service as an ASGI app: `create_app(settings)`.

The app opens the store when it starts (refusing a database whose schema it does not
know, with the command that upgrades it), resolves the default model, and closes the
store when it stops. Each resource is a router of its own (`tiller.server.routes`);
what the routes share lives in `Services`, on `app.state.services`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from tiller import __version__
from tiller.models.registry import resolve_model
from tiller.server.metrics import Metrics
from tiller.server.problems import install_problem_handlers, internal_error
from tiller.server.request_ids import RequestIds
from tiller.server.routes import health
from tiller.server.services import Services
from tiller.server.settings import ServerSettings
from tiller.store import Store


def create_app(settings: ServerSettings) -> FastAPI:
    """The service with `settings`; it opens its store when it starts serving."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(settings.database, data_dir=settings.data_dir)
        try:
            services = Services(
                settings=settings,
                store=store,
                model=resolve_model(settings.model),
                metrics=metrics,
            )
            app.state.services = services
            yield
        finally:
            await store.close()

    metrics = Metrics()
    app = FastAPI(
        title="Tiller",
        version=__version__,
        summary="Agent runs, goal solves and approvals, for many users.",
        lifespan=lifespan,
    )
    install_problem_handlers(app)
    app.add_middleware(RequestIds, on_error=internal_error, on_answered=metrics.answered)
    app.include_router(health.router)
    return app
