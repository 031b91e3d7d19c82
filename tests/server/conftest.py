"""The service's tests run against a real server on both databases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server.live_server import LiveServer, live_server
from tiller.server.settings import ServerSettings
from tiller.store import Store


@pytest.fixture
def settings(url: str, tmp_path: Path) -> ServerSettings:
    return ServerSettings(database=url, data_dir=tmp_path / "data", model="local:smollm2")


@pytest.fixture
async def server(settings: ServerSettings) -> AsyncIterator[LiveServer]:
    async with live_server(settings) as live:
        yield live


@pytest.fixture
async def store(url: str) -> AsyncIterator[Store]:
    async with await Store.open(url) as opened:
        yield opened
