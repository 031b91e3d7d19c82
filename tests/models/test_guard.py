from __future__ import annotations

import pytest

from tiller.errors import UsageError
from tiller.testing import block_network_models, ensure_network_allowed


def test_network_models_are_blocked_in_this_test_suite() -> None:
    with pytest.raises(UsageError, match="network models are blocked"):
        ensure_network_allowed("anthropic")


def test_the_guard_nests_and_restores() -> None:
    import tiller.models.guard as guard

    guard._blocked = False
    try:
        ensure_network_allowed("openai")
        with block_network_models(), pytest.raises(UsageError):
            ensure_network_allowed("openai")
        ensure_network_allowed("openai")
    finally:
        guard._blocked = True
