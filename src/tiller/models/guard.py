"""A switch that makes every network-backed model refuse to run (for test suites)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tiller.errors import UsageError

_blocked = False


def ensure_network_allowed(provider: str) -> None:
    """Providers that reach a network call this before each request."""
    if _blocked:
        raise UsageError(
            f"model provider {provider!r} was called while network models are blocked; "
            "use ScriptedModel or FunctionModel in tests"
        )


@contextmanager
def block_network_models() -> Iterator[None]:
    """Within this block, any network-backed model raises instead of calling out."""
    global _blocked
    previous, _blocked = _blocked, True
    try:
        yield
    finally:
        _blocked = previous
