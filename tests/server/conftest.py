"""The service's tests run against a real server on both databases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr

from tests.server import models
from tests.server.live_server import LiveServer, live_server
from tiller.server.main import prepare
from tiller.server.settings import ServerSettings
from tiller.store import Store

ENCRYPTION_KEY = Fernet.generate_key().decode()


@pytest.fixture
def settings(url: str, tmp_path: Path) -> ServerSettings:
    models.register()
    return ServerSettings(
        database=url,
        data_dir=tmp_path / "data",
        model="svc:echo",
        tools=("read_file", "list_files", "write_file"),
        approve_effects=("write_local", "external"),
        encryption_keys=(SecretStr(ENCRYPTION_KEY),),
    )


@pytest.fixture
async def server(settings: ServerSettings) -> AsyncIterator[LiveServer]:
    async with live_server(settings) as live:
        yield live


@pytest.fixture
async def store(url: str) -> AsyncIterator[Store]:
    async with await Store.open(url) as opened:
        yield opened


@dataclass
class Users:
    """Clients of a running server, one per user, each sending its own API key."""

    admin: httpx.AsyncClient
    ann: httpx.AsyncClient  # a developer
    bob: httpx.AsyncClient  # another developer
    vic: httpx.AsyncClient  # a viewer
    ola: httpx.AsyncClient  # an operator
    keys: dict[str, str]
    live: LiveServer


@pytest.fixture
async def users(settings: ServerSettings) -> AsyncIterator[Users]:
    admin_key = await prepare(settings)
    assert admin_key is not None
    async with live_server(settings) as live:
        clients: dict[str, httpx.AsyncClient] = {}
        keys = {"admin": admin_key}
        admin = _client(live, admin_key)
        people = (
            ("ann", "developer"),
            ("bob", "developer"),
            ("vic", "viewer"),
            ("ola", "operator"),
        )
        for name, role in people:
            made = (await admin.post("/users", json={"name": name, "role": role})).json()
            issued = await admin.post(f"/users/{made['id']}/keys", json={"name": "test"})
            keys[name] = issued.json()["key"]
            clients[name] = _client(live, keys[name])
        try:
            yield Users(
                admin, clients["ann"], clients["bob"], clients["vic"], clients["ola"], keys, live
            )
        finally:
            for client in [admin, *clients.values()]:
                await client.aclose()


def _client(live: LiveServer, key: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=live.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30
    )
