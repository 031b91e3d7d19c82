"""Session strategies: which messages go to the model when the
history is over budget. Each maps (history, budget, token counter) to the view,
with `await strategy.fit(history, budget, count)`; choose one by name with
`resolve_strategy("sliding_window")` or pass a configured instance."""

from tiller.context.strategies.base import ContextStrategy, CountTokens, Summarize
from tiller.context.strategies.hierarchical import HierarchicalSummary
from tiller.context.strategies.message_relevance import LexicalRelevance, RelevanceScorer
from tiller.context.strategies.registry import (
    StrategyFactory,
    register_strategy,
    resolve_strategy,
    strategy_names,
)
from tiller.context.strategies.semantic import SemanticCompression
from tiller.context.strategies.sliding_window import SlidingWindow
from tiller.context.strategies.window_summary import SlidingWindowWithSummary

__all__ = [
    "ContextStrategy",
    "CountTokens",
    "HierarchicalSummary",
    "LexicalRelevance",
    "RelevanceScorer",
    "SemanticCompression",
    "SlidingWindow",
    "SlidingWindowWithSummary",
    "StrategyFactory",
    "Summarize",
    "register_strategy",
    "resolve_strategy",
    "strategy_names",
]
