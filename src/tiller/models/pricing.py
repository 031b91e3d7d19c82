"""What a model call cost, in USD, from a price table users can extend.

Prices are per million tokens for input, output, cache reads and cache writes.
A model missing from the table has no cost (`None`), never a made-up 0.
Names are matched exactly; a dated snapshot or `-latest` alias of a known model
(`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`, `claude-3-7-sonnet-latest`)
takes that model's price. Nothing else is guessed: `claude-opus-4-5` is not
`claude-opus-4`, and `o3-pro` is not `o3`, so an unlisted model costs `None`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tiller.messages import Usage


@dataclass(slots=True, frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0


def _openai(input: float, output: float, cache_read: float) -> Price:
    """An OpenAI price: a token written to the prompt cache costs what any input token does."""
    return Price(input, output, cache_read, cache_write=input)


# provider -> model name -> price. Public list prices, late 2025 (Anthropic's cache
# write is the 5-minute one). "" prices every model of a provider.
PRICES: dict[str, dict[str, Price]] = {
    "anthropic": {
        "claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-1": Price(15.0, 75.0, 1.5, 18.75),
        "claude-opus-4": Price(15.0, 75.0, 1.5, 18.75),
        "claude-opus-4-0": Price(15.0, 75.0, 1.5, 18.75),
        "claude-sonnet-4-5": Price(3.0, 15.0, 0.30, 3.75),
        "claude-sonnet-4": Price(3.0, 15.0, 0.30, 3.75),
        "claude-sonnet-4-0": Price(3.0, 15.0, 0.30, 3.75),
        "claude-3-7-sonnet": Price(3.0, 15.0, 0.30, 3.75),
        "claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25),
        "claude-3-5-haiku": Price(0.80, 4.0, 0.08, 1.0),
    },
    "openai": {
        "gpt-4.1": _openai(2.0, 8.0, 0.50),
        "gpt-4.1-mini": _openai(0.40, 1.60, 0.10),
        "gpt-4.1-nano": _openai(0.10, 0.40, 0.025),
        "gpt-4o": _openai(2.50, 10.0, 1.25),
        "gpt-4o-mini": _openai(0.15, 0.60, 0.075),
        "gpt-5": _openai(1.25, 10.0, 0.125),
        "gpt-5-mini": _openai(0.25, 2.0, 0.025),
        "gpt-5-nano": _openai(0.05, 0.40, 0.005),
        "o3": _openai(2.0, 8.0, 0.50),
        "o3-mini": _openai(1.10, 4.40, 0.55),
        "o4-mini": _openai(1.10, 4.40, 0.275),
    },
    "deepseek": {  # one price for both since V3.2 (September 2025)
        "deepseek-chat": Price(0.28, 0.42, 0.028),
        "deepseek-reasoner": Price(0.28, 0.42, 0.028),
    },
    # A model running on this machine costs nothing per token.
    "local": {"": Price(0.0, 0.0)},
}

# The Responses API bills like Chat Completions.
PRICES["openai-responses"] = PRICES["openai"]


# What a provider appends to a model name for a pinned version or a moving alias:
# -20250514 (Anthropic), -2025-04-14 (OpenAI), -latest.
_SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")


def set_price(provider: str, model: str, price: Price) -> None:
    """Add or replace the price of `provider:model` (its dated snapshots share it);
    model "" prices every model of the provider that has no price of its own."""
    PRICES.setdefault(provider, {})[model] = price


def price_of(provider: str, model: str) -> Price | None:
    """The price of `model`, or of the model it is a dated snapshot of; None if unknown."""
    table = PRICES.get(provider)
    if not table:
        return None
    if model in table:
        return table[model]
    snapshot_of = _SNAPSHOT.sub("", model)
    if snapshot_of != model and snapshot_of in table:
        return table[snapshot_of]
    return table.get("")  # "" prices every model of a provider (e.g. local)


def cost_usd(provider: str, model: str, usage: Usage) -> float | None:
    """The cost of `usage` on `provider:model`, or None when the price is unknown."""
    price = price_of(provider, model)
    if price is None:
        return None
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    ) / 1_000_000


def priced(provider: str, model: str, usage: Usage) -> Usage:
    """`usage` with its cost filled in (None when the price is unknown)."""
    return replace(usage, cost_usd=cost_usd(provider, model, usage))
