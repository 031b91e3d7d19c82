"""Usage sums: a cost is reported only when every part of it is known."""

from __future__ import annotations

from tiller.messages import Usage


def test_a_known_cost_plus_an_unknown_one_is_unknown() -> None:
    priced = Usage(100, 20, cost_usd=0.01)
    unpriced = Usage(100, 20, cost_usd=None)
    assert (priced + unpriced).cost_usd is None
    assert (unpriced + priced).cost_usd is None


def test_known_costs_add_up() -> None:
    total = Usage(1, 1, cost_usd=0.25) + Usage(1, 1, cost_usd=0.5)
    assert total.cost_usd == 0.75
    assert total.input_tokens == 2


def test_a_usage_that_spent_nothing_adds_nothing() -> None:
    assert (Usage() + Usage(5, 5, cost_usd=0.1)).cost_usd == 0.1
    assert (Usage(5, 5, cost_usd=0.1) + Usage()).cost_usd == 0.1
    assert (Usage() + Usage()).cost_usd is None
