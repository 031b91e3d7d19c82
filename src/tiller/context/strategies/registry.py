"""Session strategies by name, so an agent or a session can choose one with a string."""

from __future__ import annotations

from collections.abc import Callable

from tiller.context.strategies.base import ContextStrategy
from tiller.context.strategies.hierarchical import HierarchicalSummary
from tiller.context.strategies.semantic import SemanticCompression
from tiller.context.strategies.sliding_window import SlidingWindow
from tiller.context.strategies.window_summary import SlidingWindowWithSummary
from tiller.errors import UsageError

StrategyFactory = Callable[[], ContextStrategy]

_FACTORIES: dict[str, StrategyFactory] = {
    "sliding_window": SlidingWindow,
    "sliding_window_with_summary": SlidingWindowWithSummary,
    "semantic_compression": SemanticCompression,
    "hierarchical_summary": HierarchicalSummary,
}


def register_strategy(name: str, factory: StrategyFactory) -> None:
    """Make `factory()` the strategy called `name` (replacing one of that name)."""
    _FACTORIES[name] = factory


def strategy_names() -> list[str]:
    return sorted(_FACTORIES)


def resolve_strategy(spec: ContextStrategy | str | None) -> ContextStrategy | None:
    """The strategy `spec` names (a new one with default options), or `spec` itself."""
    if spec is None or not isinstance(spec, str):
        if spec is not None and not callable(getattr(spec, "fit", None)):
            raise UsageError(
                f"{spec!r} is not a context strategy: give a name "
                f"({', '.join(strategy_names())}) or an object with an async "
                "fit(history, budget, count) method"
            )
        return spec
    factory = _FACTORIES.get(spec)
    if factory is None:
        raise UsageError(
            f"unknown context strategy {spec!r}; choose one of {', '.join(strategy_names())}, "
            "or register your own with tiller.context.strategies.register_strategy"
        )
    return factory()
