from __future__ import annotations

from collections.abc import Iterator

import pytest

from tiller.models.circuit_breaker import circuit_breakers
from tiller.testing import block_network_models

# The database fixtures (`url`, `postgres`), for the store's and the service's tests.
pytest_plugins = ["tests.databases"]


@pytest.fixture(autouse=True)
def _no_network_models() -> Iterator[None]:
    with block_network_models():
        yield


@pytest.fixture(autouse=True)
def _fresh_circuit_breakers() -> Iterator[None]:
    """Breakers are process-wide: one test's failures must not open another's circuit."""
    circuit_breakers.clear()
    yield
    circuit_breakers.clear()
