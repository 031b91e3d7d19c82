"""Users of the service (`store.users`): a unique name and a role."""

from __future__ import annotations

import builtins
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tiller.store.database import Database
from tiller.store.errors import RecordNotFound, StoreError
from tiller.store.tables import users

ROLES = ("admin", "operator", "developer", "viewer")


class UserNotFound(RecordNotFound):
    def __init__(self, user: str) -> None:
        super().__init__("user", user, "GET /users lists them")


class UserExistsError(StoreError):
    def __init__(self, name: str) -> None:
        super().__init__(f"a user named {name!r} exists already; choose another name")
        self.name = name


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str
    role: str
    created_at: datetime
    disabled_at: datetime | None

    @property
    def active(self) -> bool:
        return self.disabled_at is None


def _user(row: Any) -> User:
    return User(**row._mapping)


def _checked_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
    return role


class Users:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, name: str, role: str) -> User:
        """A new user; `UserExistsError` when the name is taken."""
        name = name.strip()
        if not name:
            raise ValueError("a user needs a name")
        values: dict[str, Any] = {
            "id": uuid.uuid4().hex,
            "name": name,
            "role": _checked_role(role),
            "created_at": self._db.clock(),
            "disabled_at": None,
        }
        try:
            async with self._db.write() as conn:
                await conn.execute(users.insert().values(**values))
        except IntegrityError:
            raise UserExistsError(name) from None
        return User(**values)

    async def get(self, user_id: str) -> User:
        return await self._one(users.c.id == user_id, user_id)

    async def by_name(self, name: str) -> User:
        return await self._one(users.c.name == name, name)

    async def list(self, *, limit: int = 100, after: str | None = None) -> builtins.list[User]:
        """Users by name; the next page: `after=` the last name of this one."""
        query = sa.select(users).order_by(users.c.name).limit(limit)
        if after is not None:
            query = query.where(users.c.name > after)
        async with self._db.read() as conn:
            return [_user(row) for row in (await conn.execute(query)).all()]

    async def count(self) -> int:
        async with self._db.read() as conn:
            return int(await conn.scalar(sa.select(sa.func.count()).select_from(users)) or 0)

    async def set_role(self, user_id: str, role: str) -> User:
        await self._change(user_id, role=_checked_role(role))
        return await self.get(user_id)

    async def disable(self, user_id: str) -> User:
        """The user can no longer authenticate; their data stays."""
        await self._change(user_id, disabled_at=self._db.clock())
        return await self.get(user_id)

    async def _change(self, user_id: str, **values: Any) -> None:
        async with self._db.write() as conn:
            result = await conn.execute(
                users.update().where(users.c.id == user_id).values(**values)
            )
        if result.rowcount != 1:
            raise UserNotFound(user_id)

    async def _one(self, where: sa.ColumnElement[bool], shown: str) -> User:
        async with self._db.read() as conn:
            row = (await conn.execute(sa.select(users).where(where))).one_or_none()
        if row is None:
            raise UserNotFound(shown)
        return _user(row)
