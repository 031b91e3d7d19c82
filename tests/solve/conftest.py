"""A real store (a SQLite file in the test's temporary directory) for solver tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tiller.store import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with await Store.open(data_dir=tmp_path / "state") as opened:
        yield opened
