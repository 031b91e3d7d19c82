"""Resource bounds: the first one spent is the reason to escalate."""

from __future__ import annotations

import pytest

from tiller.solve.bounds import ResourceBounds, SolveUsage, exceeded


def test_each_bound_names_its_reason() -> None:
    bounds = ResourceBounds(
        max_iterations=3, max_steps=10, max_wall_time_s=60, max_cost_usd=0.5, max_tokens=1000
    )
    assert exceeded(bounds, SolveUsage()) is None
    assert exceeded(bounds, SolveUsage(iterations=3)) == "max_iterations_reached"
    assert exceeded(bounds, SolveUsage(steps=10)) == "max_steps_reached"
    assert exceeded(bounds, SolveUsage(elapsed_s=61, last_progress_s=60)) == "time_limit"
    assert exceeded(bounds, SolveUsage(cost_usd=0.5)) == "cost_limit"
    assert exceeded(bounds, SolveUsage(input_tokens=600, output_tokens=400)) == "token_limit"


def test_no_progress_within_the_window_escalates() -> None:
    bounds = ResourceBounds(no_progress_window_s=30)
    assert exceeded(bounds, SolveUsage(elapsed_s=100, last_progress_s=75)) is None
    assert exceeded(bounds, SolveUsage(elapsed_s=100, last_progress_s=60)) == "no_progress"
    assert exceeded(ResourceBounds(no_progress_window_s=None), SolveUsage(elapsed_s=1e9)) is None


def test_bounds_and_usage_survive_a_round_trip_and_refuse_negatives() -> None:
    bounds = ResourceBounds(max_cost_usd=0.25, summary_every_n=None)
    assert ResourceBounds.from_data(bounds.to_data()) == bounds
    usage = SolveUsage(iterations=2, cost_usd=0.1, unpriced=True)
    assert SolveUsage.from_data(usage.to_data()) == usage
    with pytest.raises(ValueError, match="max_cost_usd=-1"):
        ResourceBounds(max_cost_usd=-1)
