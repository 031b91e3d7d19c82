"""Authentication: API keys, and bearer tokens (JWT) from an identity provider.

`Authorization: Bearer tlr_…` is an API key (`store.api_keys`). Any other bearer value is
a JWT when the server is configured for them (issuer, audience, key and algorithms all
checked, and its expiry required); its subject (`sub`) names an existing user, whose
stored role applies. Failures are counted per client address and per key prefix: past
a few the source must wait before trying again, longer each time, and then it is
blocked for a while (`store.auth_throttle`); blocks are audited. Nothing about the
credential is ever logged or returned.
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
from starlette.requests import HTTPConnection

from tiller.server.permissions import Role, permissions
from tiller.server.principal import Principal
from tiller.server.problems import Problem
from tiller.server.settings import ServerSettings
from tiller.store import Store
from tiller.store.api_keys import key_prefix
from tiller.store.users import User, UserNotFound

log = logging.getLogger(__name__)

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="tiller"'}


class KeyAndTokenAuthenticator:
    def __init__(self, store: Store, settings: ServerSettings) -> None:
        self.store = store
        self.settings = settings

    async def authenticate(self, request: HTTPConnection) -> Principal:
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        credential = credential.strip()
        if not credential and request.scope["type"] == "websocket":
            # Browsers cannot set headers on a WebSocket: the key may come as a parameter.
            scheme, credential = "bearer", request.query_params.get("access_token", "")
        if scheme.lower() != "bearer" or not credential:
            raise Problem(
                "unauthenticated",
                "send an API key or a token: Authorization: Bearer <key>",
                headers=CHALLENGE,
            )
        prefix = key_prefix(credential)
        address = request.client.host if request.client else "unknown"
        sources = [f"address:{address}", *([f"key:{prefix}"] if prefix else [])]
        earlier_failures = 0
        for verdict in await self.store.auth_throttle.check_all(sources):
            earlier_failures += verdict.failures
            if verdict.blocked:
                wait = max(int(verdict.wait_s + 0.999), 1)
                raise Problem(
                    "rate-limited",
                    f"too many failed attempts to authenticate; try again in {wait} s",
                    headers={"Retry-After": str(wait)},
                )
        principal = await (self._by_key(credential) if prefix else self._by_token(credential))
        if principal is None:
            await self._failed(sources)
            raise Problem("unauthenticated", "the key or token is not valid", headers=CHALLENGE)
        if earlier_failures:
            for source in sources:
                await self.store.auth_throttle.succeeded(source)
        return principal

    async def _by_key(self, credential: str) -> Principal | None:
        found = await self.store.api_keys.authenticate(credential)
        if found is None:
            return None
        scopes = frozenset(found.key.scopes) if found.key.scopes is not None else None
        return _principal(found.user, scopes, via="key")

    async def _by_token(self, credential: str) -> Principal | None:
        settings = self.settings
        if not settings.jwt_enabled:
            return None
        assert settings.jwt_key is not None
        try:
            claims: dict[str, Any] = jwt.decode(
                credential,
                settings.jwt_key.get_secret_value(),
                algorithms=list(settings.jwt_algorithms),
                audience=settings.jwt_audience,
                issuer=settings.jwt_issuer,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            log.info("a bearer token was refused: %s", type(exc).__name__)
            return None
        try:
            user = await self.store.users.by_name(str(claims["sub"]))
        except UserNotFound:
            log.info("a valid token names no user of this server")
            return None
        if not user.active:
            return None
        scope = claims.get("scope")
        scopes = frozenset(scope.split()) if isinstance(scope, str) else None
        return _principal(user, scopes, via="token")

    async def _failed(self, sources: list[str]) -> None:
        for source in sources:
            verdict = await self.store.auth_throttle.failed(source)
            if verdict.wait_s >= self.store.auth_throttle.rules.block_s:
                await self.store.audit.append(
                    "system",
                    "auth.blocked",
                    source,
                    {"failures": verdict.failures, "seconds": verdict.wait_s},
                )
        await self.store.audit.append("anonymous", "auth.failed", sources[0], {})


def _principal(user: User, scopes: frozenset[str] | None, *, via: str) -> Principal:
    role = Role(user.role)
    return Principal(user.id, user.name, role, permissions(role, scopes), via)
