"""Fixtures for the OpenAI-protocol wire tests: a scripted OpenAI API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.openai_api import OpenAIServer
from tiller.models.retry import RetryPolicy

# Retries as the loop does them, with waits short enough for tests.
FAST_RETRY = RetryPolicy(
    max_retries=3, base_delay_s=0.001, max_delay_s=0.005, retry_after_cap_s=0.05
)


@pytest.fixture(autouse=True)
def _no_network_models() -> None:
    """Overrides the suite-wide block: these tests talk to a server on 127.0.0.1."""


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running
