"""Sessions of the service and their histories (`store.sessions`).

Every call names the owner, and every query is filtered by it: another owner's session
is `SessionNotFound`, exactly like one that does not exist. A deleted session is
archived: it leaves the lists and refuses new messages, and its history is kept (for
the audit trail) until it is purged.

A session's history is its messages in order, numbered from 1 (`append_messages`
gives the next numbers in the same transaction as the write, so two writers cannot
take the same number).
"""

from __future__ import annotations

import builtins
import functools
import gzip
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tiller.store.database import Database, insert_rows
from tiller.store.documents import Document, EncodedJSON, checked
from tiller.store.errors import SessionNotFound
from tiller.store.sealing import Sealer
from tiller.store.tables import session_archives, session_messages, sessions

PAGE_SIZE = 20


class SessionStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    owner_id: str
    title: str
    model: str
    system_prompt: str | None
    tools: list[str]
    context_strategy: str
    sensitivity: str
    status: SessionStatus
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message of a session's history as stored: its number, run and JSON form."""

    seq: int
    run_id: str | None
    message: dict[str, Any]
    created_at: datetime


def _session(row: Any) -> Session:
    fields = {k: v for k, v in row._mapping.items() if k != "last_seq"}  # the writers' own
    return Session(**{**fields, "status": SessionStatus(row.status)})


# What `update` may change.
CHANGEABLE = frozenset({"title", "model", "system_prompt", "tools", "context_strategy"})


def is_sensitive(sensitivity: str) -> bool:
    """Whether a session's data is sealed at rest (anything but `normal`)."""
    return sensitivity != "normal"


# A session of its owner's: read for every message and run, so built once.
_OWNED = sa.select(sessions).where(
    sessions.c.id == sa.bindparam("session_id"), sessions.c.owner_id == sa.bindparam("owner_id")
)
_OWNED_ACTIVE = _OWNED.where(sessions.c.status == SessionStatus.ACTIVE.value)


class Sessions:
    """The sessions of one store; a sensitive session's messages are sealed at rest."""

    def __init__(self, db: Database, sealer: Sealer | None = None) -> None:
        self._db = db
        self._sealer = sealer or Sealer()

    async def create(
        self,
        owner_id: str,
        *,
        title: str,
        model: str,
        system_prompt: str | None = None,
        tools: Sequence[str] = (),
        context_strategy: str = "full",
        sensitivity: str = "normal",
    ) -> Session:
        if is_sensitive(sensitivity) and not self._sealer.can_seal:
            self._sealer.seal({})  # raises: a sensitive session needs a key
        now = self._db.clock()
        values: dict[str, Any] = {
            "id": uuid.uuid4().hex,
            "owner_id": owner_id,
            "title": title,
            "model": model,
            "system_prompt": system_prompt,
            "tools": list(tools),
            "context_strategy": context_strategy,
            "sensitivity": sensitivity,
            "status": SessionStatus.ACTIVE.value,
            "created_at": now,
            "updated_at": now,
            "archived_at": None,
        }
        async with self._db.write() as conn:
            await conn.execute(sessions.insert().values(**values))
        return Session(**{**values, "status": SessionStatus.ACTIVE})

    async def get(self, owner_id: str, session_id: str, *, archived: bool = False) -> Session:
        """The owner's session; `SessionNotFound` for another owner's or an archived one
        (unless `archived`)."""
        query = _OWNED if archived else _OWNED_ACTIVE
        found = {"session_id": session_id, "owner_id": owner_id}
        row = await self._db.read_batch(lambda conn: conn.execute(query, found).one_or_none())
        if row is None:
            raise SessionNotFound(session_id)
        return _session(row)

    async def list(
        self,
        owner_id: str,
        *,
        limit: int = PAGE_SIZE,
        before: str | None = None,
        title_contains: str | None = None,
        model: str | None = None,
    ) -> builtins.list[Session]:
        """The owner's active sessions, newest first; the next page: `before=` the id of
        the last one of this page. Filters: a part of the title (any case), the model."""
        query = sa.select(sessions).where(
            sessions.c.owner_id == owner_id, sessions.c.status == SessionStatus.ACTIVE.value
        )
        if title_contains:
            query = query.where(sessions.c.title.ilike(f"%{_escape_like(title_contains)}%", "\\"))
        if model:
            query = query.where(sessions.c.model == model)
        async with self._db.read() as conn:
            if before is not None:
                mark = (
                    await conn.execute(
                        sa.select(sessions.c.created_at, sessions.c.id).where(
                            sessions.c.id == before, sessions.c.owner_id == owner_id
                        )
                    )
                ).one_or_none()
                if mark is None:
                    raise SessionNotFound(before)
                query = query.where(
                    sa.or_(
                        sessions.c.created_at < mark.created_at,
                        sa.and_(sessions.c.created_at == mark.created_at, sessions.c.id < mark.id),
                    )
                )
            query = query.order_by(sessions.c.created_at.desc(), sessions.c.id.desc())
            rows = (await conn.execute(query.limit(limit))).all()
        return [_session(row) for row in rows]

    async def update(self, owner_id: str, session_id: str, **changes: Any) -> Session:
        """Change some of `CHANGEABLE`; the session as it is now."""
        unknown = set(changes) - CHANGEABLE
        if unknown:
            raise ValueError(f"cannot change {', '.join(sorted(unknown))} of a session")
        if "tools" in changes:
            changes["tools"] = list(changes["tools"])
        await self._change_active(owner_id, session_id, **changes)
        return await self.get(owner_id, session_id)

    async def archive(self, owner_id: str, session_id: str) -> None:
        """Take the session out of use (what deleting it does); its history is kept."""
        now = self._db.clock()
        await self._change_active(
            owner_id, session_id, status=SessionStatus.ARCHIVED.value, archived_at=now
        )

    async def _change_active(self, owner_id: str, session_id: str, **values: Any) -> None:
        async with self._db.write() as conn:
            result = await conn.execute(
                sessions.update()
                .where(
                    sessions.c.id == session_id,
                    sessions.c.owner_id == owner_id,
                    sessions.c.status == SessionStatus.ACTIVE.value,
                )
                .values(**values, updated_at=self._db.clock())
            )
        if result.rowcount != 1:
            raise SessionNotFound(session_id)

    # ── the history ─────────────────────────────────────────────────────────

    async def append_messages(
        self, session_id: str, messages: Sequence[Document], *, run_id: str | None
    ) -> int:
        """Add `messages` (JSON) to the session's history; the number of the last one."""
        if not messages:
            async with self._db.read() as conn:
                last = await conn.scalar(
                    sa.select(sessions.c.last_seq).where(sessions.c.id == session_id)
                )
            return int(last or 0)
        (last,) = await self.append_many([(session_id, messages, run_id)])
        return last

    async def append_many(
        self, appends: Sequence[tuple[str, Sequence[Document], str | None]]
    ) -> builtins.list[int]:
        """Several histories' new messages, `(session_id, messages, run_id)` each, in one
        transaction of two statements whatever their number: one numbers them all on the
        sessions' rows, one stores them. The number of each append's last message, in
        order; a session that is gone fails them all (`SessionNotFound`)."""
        return await self._db.write_batch(self.appending(appends))

    def appending(
        self, appends: Sequence[tuple[str, Sequence[Document], str | None]]
    ) -> Callable[[Connection], builtins.list[int]]:
        """`append_many` as work for `Database.write_batch`, to share a transaction."""
        added: dict[str, int] = {}
        for session_id, messages, _ in appends:
            for message in messages:
                if not isinstance(message, EncodedJSON):  # encoded: it is JSON already
                    checked(message, "a message")
            added[session_id] = added.get(session_id, 0) + len(messages)
        added = {session_id: n for session_id, n in added.items() if n}
        now = self._db.clock()

        def append(conn: Connection) -> builtins.list[int]:
            numbered: dict[str, tuple[int, str]] = {}
            for chunk in _chunks(list(added.items())):
                # Writers of one history take turns on its row (SQLite's writers always do).
                values: dict[str, Any] = {"now": now}
                for at, (session_id, count) in enumerate(chunk):
                    values[f"id_{at}"], values[f"n_{at}"] = session_id, count
                rows = conn.execute(_numbering(len(chunk)), values)
                numbered.update((row.id, (row.last_seq, row.sensitivity)) for row in rows)
            if gone := [session_id for session_id in added if session_id not in numbered]:
                raise SessionNotFound(gone[0])
            following = {
                session_id: last - added[session_id] + 1
                for session_id, (last, _) in numbered.items()
            }
            if unnumbered := {s for s, _, _ in appends if s not in numbered}:
                found = conn.execute(
                    sa.select(sessions.c.id, sessions.c.last_seq).where(
                        sessions.c.id.in_(unnumbered)
                    )
                )
                following.update((row.id, row.last_seq + 1) for row in found)
            rows_to_insert: list[dict[str, Any]] = []
            lasts: list[int] = []
            for session_id, messages, run_id in appends:
                if not messages:  # nothing added: the history's last number so far
                    lasts.append(following.get(session_id, 1) - 1)
                    continue
                first = following[session_id]
                following[session_id] = first + len(messages)
                sealed = is_sensitive(numbered[session_id][1])
                rows_to_insert += [
                    {
                        "session_id": session_id,
                        "seq": first + n,
                        "run_id": run_id,
                        "message": self._sealer.seal(message) if sealed else message,
                        "created_at": now,
                    }
                    for n, message in enumerate(messages)
                ]
                lasts.append(first + len(messages) - 1)
            insert_rows(conn, session_messages, rows_to_insert)
            return lasts

        return append

    async def history(self, session_id: str, *, after: int = 0) -> builtins.list[StoredMessage]:
        """The session's messages numbered above `after`, in order (from its archive, once
        it expired)."""
        query = (
            sa.select(
                session_messages.c.seq,
                session_messages.c.run_id,
                session_messages.c.message,
                session_messages.c.created_at,
            )
            .where(session_messages.c.session_id == session_id, session_messages.c.seq > after)
            .order_by(session_messages.c.seq)
        )

        def read(conn: Connection) -> tuple[bytes | None, Sequence[Any]]:
            packed = conn.scalar(self._archive_of(session_id))
            return packed, [] if packed is not None else conn.execute(query).all()

        packed, rows = await self._db.read_batch(read)
        if packed is not None:
            return [m for m in self._unpacked(packed) if m.seq > after]
        return [
            StoredMessage(seq, run_id, self._sealer.open(message), created_at)
            for seq, run_id, message, created_at in rows
        ]

    # ── expiry ──────────────────────────────────────────────────────────────

    async def expire_idle(self, idle_s: float) -> builtins.list[str]:
        """Archive the active sessions with no activity for `idle_s` seconds: each one's
        history is compressed into its archive and its messages deleted, in one
        transaction per session. The ids of the sessions archived."""
        now = self._db.clock()
        cutoff = now - timedelta(seconds=idle_s)
        async with self._db.read() as conn:
            idle = (
                await conn.scalars(
                    sa.select(sessions.c.id).where(
                        sessions.c.status == SessionStatus.ACTIVE.value,
                        sessions.c.updated_at < cutoff,
                    )
                )
            ).all()
        expired = []
        for session_id in idle:
            async with self._db.write() as conn:
                changed = await conn.execute(
                    sessions.update()
                    .where(
                        sessions.c.id == session_id,
                        sessions.c.status == SessionStatus.ACTIVE.value,
                        sessions.c.updated_at < cutoff,  # not touched in between
                    )
                    .values(status=SessionStatus.ARCHIVED.value, archived_at=now)
                )
                if changed.rowcount != 1:
                    continue
                rows = (
                    await conn.execute(
                        sa.select(session_messages)
                        .where(session_messages.c.session_id == session_id)
                        .order_by(session_messages.c.seq)
                    )
                ).all()
                kept = [
                    {
                        "seq": r.seq,
                        "run_id": r.run_id,
                        "message": r.message,  # still sealed, for a sensitive session
                        "created_at": r.created_at.isoformat(),
                    }
                    for r in rows
                ]
                packed = gzip.compress(json.dumps(kept, separators=(",", ":")).encode())
                await conn.execute(
                    session_archives.insert().values(
                        session_id=session_id, archived_at=now, messages=len(kept), history=packed
                    )
                )
                await conn.execute(
                    session_messages.delete().where(session_messages.c.session_id == session_id)
                )
            expired.append(session_id)
        return expired

    async def purge_archives(self, retention_s: float) -> builtins.list[str]:
        """Delete the sessions whose archive is older than `retention_s` seconds, with
        everything of theirs (runs, events, tool calls). The ids of those deleted."""
        cutoff = self._db.clock() - timedelta(seconds=retention_s)
        async with self._db.write() as conn:
            old = (
                await conn.scalars(
                    sa.select(session_archives.c.session_id).where(
                        session_archives.c.archived_at < cutoff
                    )
                )
            ).all()
            if old:
                await conn.execute(sessions.delete().where(sessions.c.id.in_(old)))
        return list(old)

    @staticmethod
    def _archive_of(session_id: str) -> sa.Select[Any]:
        return sa.select(session_archives.c.history).where(
            session_archives.c.session_id == session_id
        )

    def _unpacked(self, packed: bytes) -> builtins.list[StoredMessage]:
        return [
            StoredMessage(
                item["seq"],
                item["run_id"],
                self._sealer.open(item["message"]),
                datetime.fromisoformat(item["created_at"]),
            )
            for item in json.loads(gzip.decompress(packed))
        ]


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# Sessions numbered by one statement: well under SQLite's limit of bound values.
_CHUNK = 500


@functools.lru_cache(maxsize=128)
def _numbering(count: int) -> sa.Update:
    """The statement that numbers the new messages of `count` sessions on their rows
    (`id_K` gets `n_K` more, stamped `now`). Built once for each count, so it is compiled
    once: built anew for every batch, it took more time than the write itself."""
    ids = [sa.bindparam(f"id_{at}", type_=sessions.c.id.type) for at in range(count)]
    more = [sa.bindparam(f"n_{at}", type_=sa.Integer()) for at in range(count)]
    return (
        sessions.update()
        .where(sessions.c.id.in_(ids))
        .values(
            updated_at=sa.bindparam("now", type_=sessions.c.updated_at.type),
            last_seq=sessions.c.last_seq
            + sa.case(*zip(ids, more, strict=True), value=sessions.c.id),
        )
        .returning(sessions.c.id, sessions.c.last_seq, sessions.c.sensitivity)
    )


def _chunks(items: list[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    return [items[at : at + _CHUNK] for at in range(0, len(items), _CHUNK)]
