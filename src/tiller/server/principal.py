"""Who a request acts for: `Principal`, and the dependency that demands a permission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from fastapi import Request
from starlette.requests import HTTPConnection

from tiller.server.permissions import Permission, Role
from tiller.server.problems import Problem


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated user, with what this request's credentials let them do."""

    user_id: str
    name: str
    role: Role
    permissions: frozenset[Permission]
    via: str  # "key" or "token"

    def can(self, permission: Permission) -> bool:
        return permission in self.permissions


class Authenticator(Protocol):
    async def authenticate(self, request: HTTPConnection) -> Principal:
        """The request's principal; a `Problem` (unauthenticated, rate-limited) if none."""
        ...


async def principal_of(request: HTTPConnection) -> Principal:
    """The request's principal, authenticated once per request."""
    found = getattr(request.state, "principal", None)
    if isinstance(found, Principal):
        return found
    authenticator: Authenticator = request.app.state.services.authenticator
    principal = await authenticator.authenticate(request)
    request.state.principal = principal
    return principal


def requires(permission: Permission) -> Callable[[Request], Awaitable[Principal]]:
    """A route dependency: the principal, if they may do `permission` (else 403)."""

    async def check(request: Request) -> Principal:
        principal = await principal_of(request)
        if not principal.can(permission):
            raise Problem(
                "forbidden",
                f"this needs the permission {permission.value}, which the role "
                f"{principal.role.value} (or this key's scopes) does not give",
            )
        return principal

    check.permission = permission  # type: ignore[attr-defined]  # for the route table
    return check
