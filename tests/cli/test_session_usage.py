"""Totals of a chat session, for /cost."""

from __future__ import annotations

from tiller.cli.session_usage import SessionUsage
from tiller.events import RunStats
from tiller.messages import Usage


def test_no_runs_yet() -> None:
    assert SessionUsage().describe() == "0 in / 0 out tokens (0 total) over 0 runs · cost n/a"


def test_sums_tokens_and_cost() -> None:
    usage = SessionUsage()
    usage.add(RunStats(usage=Usage(100, 20, cost_usd=0.001)))
    usage.add(RunStats(usage=Usage(50, 5, cache_read_tokens=30, cost_usd=0.0005)))
    assert usage.describe() == (
        "150 in / 25 out tokens, cache 30 read / 0 written (205 total) over 2 runs · cost $0.0015"
    )


def test_unknown_cost_is_not_a_made_up_zero() -> None:
    usage = SessionUsage()
    usage.add(RunStats(usage=Usage(0, 0)))
    assert usage.describe().endswith("over 1 run · cost n/a")


def test_a_model_without_a_price_makes_the_cost_unknown_not_a_partial_sum() -> None:
    usage = SessionUsage()
    usage.add(RunStats(usage=Usage(10, 2, cost_usd=0.25)))
    assert usage.describe().endswith("cost $0.2500")
    usage.add(RunStats(usage=Usage(10, 2), unpriced_models=["openai:my-model"]))
    assert usage.describe().endswith("over 2 runs · cost unknown for model openai:my-model")
    usage.add(RunStats(usage=Usage(1, 1, cost_usd=0.5), unpriced_models=["ollama:qwen3"]))
    assert usage.describe().endswith(
        "over 3 runs · cost unknown for models openai:my-model, ollama:qwen3"
    )
    assert "$" not in usage.describe()
