"""Every store test runs on SQLite and on a real PostgreSQL server started for the session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tiller.store import Store


@pytest.fixture
async def store(url: str) -> AsyncIterator[Store]:
    async with await Store.open(url) as opened:
        yield opened
