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


@pytest.mark.parametrize(
    ("provider", "snapshot", "model"),
    [
        ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic", "claude-opus-4-5-20251101", "claude-opus-4-5"),
        ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic", "claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
        ("openai", "gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("openai", "gpt-4.1-2025-04-14", "gpt-4.1"),
        ("openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("openai-responses", "o3-2025-04-16", "o3"),
    ],
)
def test_a_dated_snapshot_costs_what_its_model_costs(
    provider: str, snapshot: str, model: str
) -> None:
    assert price_of(provider, snapshot) == PRICES[provider][model]


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("openai", "o3-pro"),  # not o3: a different, dearer model
        ("openai", "gpt-5-pro"),
        ("openai", "o3-pro-2025-06-10"),  # a snapshot of an unknown model
        ("openai", "gpt-4.1-preview"),
        ("openai", "gpt-4.1-20"),  # not a date
        ("anthropic", "claude-opus-4-7"),
        ("anthropic", "claude-sonnet-4-5-thinking"),
    ],
)
def test_a_name_that_only_starts_like_a_known_model_has_no_price(provider: str, model: str) -> None:
    assert price_of(provider, model) is None
    assert cost_usd(provider, model, Usage(input_tokens=1000, output_tokens=1000)) is None


@pytest.mark.parametrize(
    ("model", "input", "output"),
    [
        ("claude-opus-4-5", 5.0, 25.0),  # not claude-opus-4's $15 / $75
        ("claude-opus-4-1", 15.0, 75.0),
        ("claude-sonnet-4-5", 3.0, 15.0),
        ("claude-haiku-4-5", 1.0, 5.0),
    ],
)
def test_anthropic_list_prices(model: str, input: float, output: float) -> None:
    price = price_of("anthropic", model)
    assert price is not None
    assert (price.input, price.output) == (input, output)
    # cache reads cost a tenth of input, 5-minute cache writes 1.25x
    assert price.cache_read == pytest.approx(input / 10)
    assert price.cache_write == pytest.approx(input * 1.25)


def test_users_extend_the_table() -> None:
    set_price("ollama", "qwen3", Price(input=1.0, output=2.0))
    try:
        usage = priced("ollama", "qwen3", Usage(input_tokens=500_000, output_tokens=500_000))
        assert usage.cost_usd == pytest.approx(1.5)
    finally:
        del PRICES["ollama"]


def test_a_users_price_covers_its_snapshots_but_not_longer_names() -> None:
    set_price("openai", "gpt-9", Price(input=4.0, output=8.0))
    try:
        assert price_of("openai", "gpt-9-2031-01-01") == Price(input=4.0, output=8.0)
        assert price_of("openai", "gpt-9-mini") is None
    finally:
        del PRICES["openai"]["gpt-9"]


def test_local_models_cost_nothing() -> None:
    assert cost_usd("local", "smollm2", Usage(input_tokens=100, output_tokens=5)) == 0.0


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_openai_bills_a_cache_write_as_input(provider: str) -> None:
    for model, price in PRICES[provider].items():
        assert price.cache_write == price.input, model
    usage = Usage(input_tokens=600, cache_write_tokens=400, output_tokens=10)
    as_input = Usage(input_tokens=1000, output_tokens=10)
    assert cost_usd(provider, "gpt-4.1", usage) == pytest.approx(
        cost_usd(provider, "gpt-4.1", as_input)
    )
