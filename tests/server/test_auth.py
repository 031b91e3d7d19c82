"""Authentication over HTTP: JWT bearer tokens checked in full, and failed attempts
slowed then blocked (and the block audited)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import jwt
import pytest

from tests.server.live_server import LiveServer, live_server
from tiller.server.main import prepare
from tiller.server.settings import ServerSettings

SECRET = "a-shared-secret-that-is-long-enough-for-hs256"


@pytest.fixture
async def token_server(settings: ServerSettings) -> AsyncIterator[tuple[LiveServer, str]]:
    settings = ServerSettings(
        **{
            **settings.model_dump(),
            "jwt_issuer": "https://id.example",
            "jwt_audience": "tiller",
            "jwt_algorithms": ("HS256",),
            "jwt_key": SECRET,
        }
    )
    key = await prepare(settings)
    assert key is not None
    async with live_server(settings) as live:
        admin = {"Authorization": f"Bearer {key}"}
        await live.client.post("/users", json={"name": "ann", "role": "developer"}, headers=admin)
        yield live, key


def token(**changes: Any) -> str:
    claims = {
        "iss": "https://id.example",
        "aud": "tiller",
        "sub": "ann",
        "exp": int(time.time()) + 300,
        **changes,
    }
    key = changes.pop("key", SECRET)
    return jwt.encode({k: v for k, v in claims.items() if k != "key"}, key, algorithm="HS256")


async def test_a_valid_token_acts_for_its_user_and_any_flaw_is_refused(
    token_server: tuple[LiveServer, str],
) -> None:
    live, _ = token_server

    async def me(value: str) -> httpx.Response:
        return await live.client.get("/me", headers={"Authorization": f"Bearer {value}"})

    good = await me(token())
    assert good.status_code == 200, good.text
    assert (good.json()["name"], good.json()["via"]) == ("ann", "token")
    narrowed = await me(token(scope="sessions:read"))
    assert narrowed.json()["permissions"] == ["sessions:read"]
    for flawed in (
        token(exp=int(time.time()) - 10),
        token(aud="someone-else"),
        token(iss="https://evil.example"),
        token(key="another-secret-that-is-long-enough-for-hs256"),
        token(sub="nobody"),
        jwt.encode({"sub": "ann", "aud": "tiller", "iss": "https://id.example"}, SECRET),
    ):
        answer = await me(flawed)
        assert answer.status_code == 401, answer.text


async def test_failed_attempts_are_slowed_then_blocked_and_audited(
    token_server: tuple[LiveServer, str],
) -> None:
    live, key = token_server
    wrong = {"Authorization": "Bearer tlr_aaaaaaaaaaaa_" + "x" * 43}
    statuses = [(await live.client.get("/me", headers=wrong)).status_code for _ in range(8)]
    assert statuses[:5] == [401] * 5
    assert 429 in statuses[5:]
    blocked = await live.client.get("/me", headers=wrong)
    assert blocked.status_code == 429
    assert int(blocked.headers["retry-after"]) >= 1
    assert blocked.json()["type"] == "urn:tiller:problem:rate-limited"
    admin = {"Authorization": f"Bearer {key}"}
    failed = (await live.client.get("/audit?action=auth.failed", headers=admin)).json()
    assert len(failed) >= 5
