from __future__ import annotations

from collections.abc import Iterator

import pytest

from tiller.testing import block_network_models


@pytest.fixture(autouse=True)
def _no_network_models() -> Iterator[None]:
    with block_network_models():
        yield
