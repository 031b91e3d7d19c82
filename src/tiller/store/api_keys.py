"""API keys (`store.api_keys`): shown once, kept only as a hash.

A key reads `tlr_PREFIX_SECRET`. The prefix (public, unique) finds the key's row; the
secret (256 random bits) is checked against the stored SHA-256 of it in constant time.
A fast hash is enough for a secret that long: there is nothing to guess, so a slow
password hash would only slow every request. A revoked or expired key, and any key of a
disabled user, authenticates no one.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from tiller.store.database import Database
from tiller.store.errors import RecordNotFound
from tiller.store.tables import api_keys, users
from tiller.store.users import User, UserNotFound

# `last_used_at` is kept to the minute: a busy key costs no write per request.
LAST_USED_RESOLUTION_S = 60.0
KEY_FORMAT = re.compile(r"tlr_([A-Za-z0-9]{12})_([A-Za-z0-9_\-]{43})")


class ApiKeyNotFound(RecordNotFound):
    def __init__(self, key_id: str) -> None:
        super().__init__("API key", key_id, "GET /users/{id}/keys lists a user's keys")


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as stored: never its secret."""

    id: str
    user_id: str
    prefix: str
    name: str
    scopes: list[str] | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class IssuedKey:
    key: ApiKey
    secret: str  # the whole key, `tlr_PREFIX_SECRET`: shown once, never stored


@dataclass(frozen=True, slots=True)
class Authenticated:
    user: User
    key: ApiKey


def new_key_text() -> str:
    """A new API key's text: a 12-character prefix and a 256-bit secret."""
    return f"tlr_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"


def key_prefix(given: str) -> str | None:
    """The lookup prefix of a string shaped like a key (None if it is not one)."""
    found = KEY_FORMAT.fullmatch(given)
    return found.group(1) if found else None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


_COLUMNS = [c for c in api_keys.c if c.name != "secret_hash"]


# A key by its prefix, with its user's columns (as `users_NAME`).
_KEY_AND_USER = (
    sa.select(api_keys, *(c.label(f"users_{c.name}") for c in users.c))
    .join(users, users.c.id == api_keys.c.user_id)
    .where(api_keys.c.prefix == sa.bindparam("prefix"))
)


def _key(row: Any) -> ApiKey:
    return ApiKey(**{c.name: row._mapping[c.name] for c in _COLUMNS})


class ApiKeys:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def issue(
        self,
        user_id: str,
        name: str,
        *,
        scopes: Sequence[str] | None = None,
        expires_at: datetime | None = None,
        given: str | None = None,
    ) -> IssuedKey:
        """A new key for the user; the secret is in the result and nowhere else.
        `given` stores a key made beforehand (`new_key_text`) instead of a new one."""
        if given is None:
            given = new_key_text()
        found = KEY_FORMAT.fullmatch(given)
        if found is None:
            raise ValueError(
                "an API key must look like tlr_<12 letters or digits>_<43 characters>; "
                'make one with: python -c "from tiller.store.api_keys import new_key_text; '
                'print(new_key_text())"'
            )
        prefix, secret = found.groups()
        values: dict[str, Any] = {
            "id": uuid.uuid4().hex,
            "user_id": user_id,
            "prefix": prefix,
            "secret_hash": _hash(secret),
            "name": name,
            "scopes": list(scopes) if scopes is not None else None,
            "created_at": self._db.clock(),
            "expires_at": expires_at,
            "revoked_at": None,
            "last_used_at": None,
        }
        async with self._db.write() as conn:
            if await conn.scalar(sa.select(users.c.id).where(users.c.id == user_id)) is None:
                raise UserNotFound(user_id)
            await conn.execute(api_keys.insert().values(**values))
        del values["secret_hash"]
        return IssuedKey(ApiKey(**values), f"tlr_{prefix}_{secret}")

    async def authenticate(self, given: str) -> Authenticated | None:
        """The key's user, if `given` is a current key of an active user."""
        found = KEY_FORMAT.fullmatch(given)
        if found is None:
            return None
        prefix, secret = found.groups()
        now = self._db.clock()

        # Every request asks: one query, built once.
        row = await self._db.read_batch(
            lambda conn: conn.execute(_KEY_AND_USER, {"prefix": prefix}).one_or_none()
        )
        if row is None or not hmac.compare_digest(row.secret_hash, _hash(secret)):
            return None
        key = _key(row)
        if key.revoked_at is not None or (key.expires_at is not None and key.expires_at <= now):
            return None
        user = User(**{c.name: row._mapping[f"users_{c.name}"] for c in users.c})
        if not user.active:
            return None
        last = key.last_used_at
        if last is None or (now - last).total_seconds() >= LAST_USED_RESOLUTION_S:
            await self._db.write_batch(
                lambda conn: conn.execute(
                    api_keys.update().where(api_keys.c.id == key.id).values(last_used_at=now)
                )
            )
        return Authenticated(user, key)

    async def revoke(self, key_id: str) -> ApiKey:
        """Revoke the key (a revoked key stays revoked: its first revocation is kept)."""
        async with self._db.write() as conn:
            await conn.execute(
                api_keys.update()
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=self._db.clock())
            )
        return await self.get(key_id)

    async def get(self, key_id: str) -> ApiKey:
        async with self._db.read() as conn:
            row = (
                await conn.execute(sa.select(*_COLUMNS).where(api_keys.c.id == key_id))
            ).one_or_none()
        if row is None:
            raise ApiKeyNotFound(key_id)
        return _key(row)

    async def of_user(self, user_id: str) -> builtins.list[ApiKey]:
        async with self._db.read() as conn:
            rows = (
                await conn.execute(
                    sa.select(*_COLUMNS)
                    .where(api_keys.c.user_id == user_id)
                    .order_by(api_keys.c.created_at)
                )
            ).all()
        return [_key(row) for row in rows]
