"""`/users` and their API keys (admins), `/me` and one's own keys (everyone)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, Field

from tiller.server.permissions import Permission
from tiller.server.principal import Principal, principal_of, requires
from tiller.server.problems import Problem, not_found
from tiller.server.services import Services, services
from tiller.store.api_keys import ApiKey, ApiKeyNotFound
from tiller.store.users import User, UserExistsError, UserNotFound

router = APIRouter(tags=["users"])

Admin = Annotated[Principal, Depends(requires(Permission.USERS_MANAGE))]
Anyone = Annotated[Principal, Depends(requires(Permission.KEYS_OWN))]
Svc = Annotated[Services, Depends(services)]
RoleName = Literal["admin", "operator", "developer", "viewer"]


class UserIn(BaseModel):
    name: str = Field(min_length=1, max_length=200, pattern=r"^[^\s].*$")
    role: RoleName = "developer"


class UserPatch(BaseModel):
    role: RoleName | None = None
    disabled: bool | None = Field(None, description="true: the user can no longer sign in.")


class UserOut(BaseModel):
    id: str
    name: str
    role: str
    created_at: datetime
    disabled_at: datetime | None


class KeyIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    scopes: list[Permission] | None = Field(None, description="None: all of the user's role.")
    expires_at: datetime | None = None


class KeyOut(BaseModel):
    id: str
    user_id: str
    prefix: str
    name: str
    scopes: list[str] | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


class IssuedKeyOut(KeyOut):
    key: str = Field(description="The whole key: shown this once, never again.")


class MeOut(BaseModel):
    id: str
    name: str
    role: str
    permissions: list[str]
    via: str


def _user(user: User) -> UserOut:
    return UserOut.model_validate(user, from_attributes=True)


def _key(key: ApiKey) -> KeyOut:
    return KeyOut.model_validate(key, from_attributes=True)


@router.get("/me", summary="Who you are and what you may do")
async def me(who: Annotated[Principal, Depends(principal_of)]) -> MeOut:
    return MeOut(
        id=who.user_id,
        name=who.name,
        role=who.role.value,
        permissions=sorted(p.value for p in who.permissions),
        via=who.via,
    )


@router.post("/users", status_code=201, summary="Create a user")
async def create_user(body: UserIn, who: Admin, svc: Svc) -> UserOut:
    try:
        user = await svc.store.users.create(body.name, body.role)
    except UserExistsError as exc:
        raise Problem("conflict", str(exc)) from None
    await svc.audit(who, "user.created", user.id, {"name": user.name, "role": user.role})
    return _user(user)


@router.get("/users", summary="Users, by name")
async def list_users(
    who: Admin,
    svc: Svc,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    after: str | None = None,
) -> list[UserOut]:
    return [_user(u) for u in await svc.store.users.list(limit=limit, after=after)]


@router.patch("/users/{user_id}", summary="Change a user's role, or disable them")
async def update_user(user_id: str, body: UserPatch, who: Admin, svc: Svc) -> UserOut:
    user = await _existing(svc, user_id)
    if body.role is not None and body.role != user.role:
        user = await svc.store.users.set_role(user_id, body.role)
        await svc.audit(who, "user.role_changed", user_id, {"role": body.role})
    if body.disabled and user.active:
        user = await svc.store.users.disable(user_id)
        await svc.audit(who, "user.disabled", user_id)
    return _user(user)


@router.post("/users/{user_id}/keys", status_code=201, summary="Issue an API key")
async def issue_key(user_id: str, body: KeyIn, who: Admin, svc: Svc) -> IssuedKeyOut:
    await _existing(svc, user_id)
    scopes = [s.value for s in body.scopes] if body.scopes is not None else None
    issued = await svc.store.api_keys.issue(
        user_id, body.name, scopes=scopes, expires_at=body.expires_at
    )
    await svc.audit(who, "key.issued", issued.key.id, {"user_id": user_id, "scopes": scopes})
    return IssuedKeyOut(**_key(issued.key).model_dump(), key=issued.secret)


@router.get("/users/{user_id}/keys", summary="A user's API keys (never their secrets)")
async def user_keys(user_id: str, who: Anyone, svc: Svc) -> list[KeyOut]:
    if user_id != who.user_id and not who.can(Permission.USERS_MANAGE):
        raise not_found("user", user_id)
    return [_key(k) for k in await svc.store.api_keys.of_user(user_id)]


@router.delete("/keys/{key_id}", status_code=204, summary="Revoke an API key")
async def revoke_key(key_id: str, who: Anyone, svc: Svc) -> Response:
    try:
        key = await svc.store.api_keys.get(key_id)
    except ApiKeyNotFound:
        raise not_found("API key", key_id) from None
    if key.user_id != who.user_id and not who.can(Permission.USERS_MANAGE):
        raise not_found("API key", key_id)
    await svc.store.api_keys.revoke(key_id)
    await svc.audit(who, "key.revoked", key_id, {"user_id": key.user_id})
    return Response(status_code=204)


async def _existing(svc: Services, user_id: str) -> User:
    try:
        return await svc.store.users.get(user_id)
    except UserNotFound:
        raise not_found("user", user_id) from None
