"""Running the service: checks before listening, then uvicorn until SIGTERM or Ctrl-C.

Before it listens, the server opens its database (a schema it does not know, or an
older one, stops it here with the command to run) and resolves its model, so a
deployment that cannot work fails at once, in one line, with exit status 2. On SIGTERM
it stops accepting connections and gives the runs `shutdown_grace_s` to reach a saved
point.
"""

from __future__ import annotations

import asyncio
from typing import TextIO

import uvicorn

from tiller.models.registry import resolve_model
from tiller.server.app import create_app
from tiller.server.logs import configure_logging
from tiller.server.settings import ServerSettings
from tiller.store import Store


async def prepare(settings: ServerSettings) -> None:
    """Check the database and the model before listening; raise a `TillerError` if not."""
    resolve_model(settings.model)
    store = await Store.open(settings.database, data_dir=settings.data_dir)
    await store.close()


def run_server(settings: ServerSettings, out: TextIO) -> int:
    """Serve until stopped; the exit status."""
    configure_logging(settings.log_level)
    asyncio.run(prepare(settings))
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=int(settings.shutdown_grace_s),
        lifespan="on",
    )
    out.write(f"Tiller serving on http://{settings.host}:{settings.port} (API docs at /docs)\n")
    out.flush()
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 1
