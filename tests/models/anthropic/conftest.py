"""Fixtures for the Anthropic provider's wire tests: a scripted Messages API server on
127.0.0.1 and a model pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.servers.anthropic_api import AnthropicAPI
from tiller.models.anthropic import AnthropicModel

API_KEY = "test-key"


@pytest.fixture(autouse=True)
def _no_network_models() -> None:
    # Overrides the suite-wide block: these tests talk to a server on 127.0.0.1.
    return


@pytest.fixture(scope="module")
def _serving() -> Iterator[AnthropicAPI]:
    server = AnthropicAPI(api_key=API_KEY)
    with server.serving():
        yield server


@pytest.fixture
def api(_serving: AnthropicAPI) -> AnthropicAPI:
    """The module's server, with no requests recorded and nothing scripted."""
    _serving.reset()
    return _serving


@pytest.fixture
async def model(api: AnthropicAPI) -> AsyncIterator[AnthropicModel]:
    claude = AnthropicModel("claude-sonnet-4-5", api_key=API_KEY, base_url=api.url)
    yield claude
    await claude.aclose()
