import pytest

from tiller.messages import Usage
from tiller.models.pricing import PRICES, Price, cost_usd, price_of, priced, set_price


def test_cost_counts_every_kind_of_token() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=2_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
    )
    assert cost_usd("anthropic", "claude-sonnet-4-5", usage) == pytest.approx(3 + 30 + 0.3 + 3.75)


def test_unknown_price_is_none_not_zero() -> None:
    usage = Usage(input_tokens=10, output_tokens=10)
    assert cost_usd("openai", "no-such-model", usage) is None
    assert cost_usd("ollama", "qwen3", usage) is None
    assert priced("ollama", "qwen3", usage).cost_usd is None


def test_dated_snapshot_finds_its_longest_family() -> None:
    assert (
        price_of("anthropic", "claude-sonnet-4-5-20250929")
        == PRICES["anthropic"]["claude-sonnet-4-5"]
    )
    assert price_of("openai", "gpt-4.1-mini-2025-04-14") == PRICES["openai"]["gpt-4.1-mini"]
    assert price_of("openai", "gpt-4.1-2025-04-14") == PRICES["openai"]["gpt-4.1"]


def test_users_extend_the_table() -> None:
    set_price("ollama", "qwen3", Price(input=1.0, output=2.0))
    try:
        usage = priced("ollama", "qwen3", Usage(input_tokens=500_000, output_tokens=500_000))
        assert usage.cost_usd == pytest.approx(1.5)
    finally:
        del PRICES["ollama"]


def test_local_models_cost_nothing() -> None:
    assert cost_usd("local", "smollm2", Usage(input_tokens=100, output_tokens=5)) == 0.0
