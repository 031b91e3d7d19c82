"""Running the service: checks before listening, then uvicorn until SIGTERM or Ctrl-C.

Before it listens, the server opens its database (a schema it does not know, or an
older one, stops it here with the command to run) and resolves its model, so a
deployment that cannot work fails at once, in one line, with exit status 2. On SIGTERM
it stops accepting connections and gives the runs `shutdown_grace_s` to reach a saved
point.
"""

from __future__ import annotations

import asyncio
import gc
from typing import TextIO

import uvicorn

from tiller.models.registry import resolve_model
from tiller.server.app import create_app
from tiller.server.logs import configure_logging
from tiller.server.settings import ServerSettings, SettingsError
from tiller.store import Store

FIRST_ADMIN = "admin"
# Python collects its youngest generation every 700 new objects and the oldest every
# 100 collections of those by default. Runs under way make short-lived objects by the
# million (SQLAlchemy's statements among them, which are cycles); many are traced into
# the oldest generation, and a full collection then walks every live run while the event
# loop, and every stream, waits. Collected too rarely, each young collection frees so much
# that it stops the loop as long. Timed with `gc.callbacks` in the server under
# `benchmarks/service.py`'s 1,000 runs: the default made 14 full collections of about
# 220 ms each; every 50,000 objects, young collections of 100 to 140 ms; these, young
# collections of 17 ms at most and 2 full ones (170 and 330 ms). What is alive once the
# server is set up is frozen: never traced again.
COLLECTOR_THRESHOLDS = (1_000, 10, 100)


async def prepare(settings: ServerSettings) -> str | None:
    """Check the database and the model before listening; raise a `TillerError` if not.
    A database with no user gets its first admin: the admin's new API key is returned,
    to be shown once (with `admin_key` set, that key is the admin's, and not shown)."""
    resolve_model(settings.model)
    async with await Store.open(
        settings.database, data_dir=settings.data_dir, keys=settings.keys
    ) as store:
        if await store.users.count():
            return None
        given = settings.admin_key.get_secret_value() if settings.admin_key else None
        try:
            admin = await store.users.create(FIRST_ADMIN, "admin")
            issued = await store.api_keys.issue(admin.id, "first admin key", given=given)
        except ValueError as exc:
            raise SettingsError(f"setting admin_key (TILLER_ADMIN_KEY): {exc}") from None
        await store.audit.append("system", "user.created", admin.id, {"role": "admin"})
        return None if given else issued.secret


def collect_rarely() -> None:
    """Freeze what is alive now, and collect at `COLLECTOR_THRESHOLDS` from now on."""
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def run_server(settings: ServerSettings, out: TextIO) -> int:
    """Serve until stopped; the exit status."""
    configure_logging(settings.log_level)
    first_key = asyncio.run(prepare(settings))
    if first_key is not None:
        out.write(
            f"Created the first admin, {FIRST_ADMIN!r}. Its API key, shown only this once:\n"
            f"  {first_key}\n"
            "Send it as: Authorization: Bearer <key>\n"
        )
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
    collect_rarely()
    server.run()
    return 0 if server.started else 1
