"""The cleanup task: idle sessions archived, old archives deleted.

Every `cleanup_every_s` seconds (and once at start) the sessions with no activity for
`session_idle_s` are archived, their histories compressed, and the archives older than
`archive_retention_s` are deleted with everything of their sessions; each deletion is
audited. Every replica may run it: each step is a conditional update, done once.
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.exc import SQLAlchemyError

from tiller.server.settings import ServerSettings
from tiller.store import Store

log = logging.getLogger(__name__)


async def clean_up(store: Store, settings: ServerSettings) -> tuple[list[str], list[str]]:
    """One round: (the sessions archived, the sessions deleted)."""
    archived = await store.sessions.expire_idle(settings.session_idle_s)
    deleted = await store.sessions.purge_archives(settings.archive_retention_s)
    for session_id in archived:
        await store.audit.append("system", "session.expired", session_id, {})
    for session_id in deleted:
        await store.audit.append("system", "session.purged", session_id, {})
    return archived, deleted


async def keep_clean(store: Store, settings: ServerSettings) -> None:
    """Clean up now and every `cleanup_every_s` until cancelled."""
    while True:
        try:
            await clean_up(store, settings)
        except (SQLAlchemyError, OSError):
            log.exception("the session cleanup failed; it runs again later")
        await asyncio.sleep(settings.cleanup_every_s)
