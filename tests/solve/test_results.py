"""Every value a solving step returns becomes a `Result`."""

from __future__ import annotations

from tiller.solve.results import Result, Status, normalize_result


def test_results_pass_through_and_statuses_are_wrapped() -> None:
    result = Result(Status.SUCCESS, data=1)
    assert normalize_result(result) is result
    assert normalize_result(Status.STOP_AND_WAIT) == Result(Status.STOP_AND_WAIT)
    assert normalize_result("NEEDS_CLARIFICATION").status is Status.NEEDS_CLARIFICATION
    assert normalize_result(Status.NEEDS_CLARIFICATION).waits_for_a_person


def test_anything_else_is_a_failure_that_keeps_the_value() -> None:
    odd = normalize_result({"weird": True})
    assert odd.status is Status.FAILURE
    assert odd.error == "unknown_result_type"
    assert odd.meta == {"raw": "{'weird': True}"}
    assert normalize_result("maybe").status is Status.FAILURE


def test_a_result_survives_a_round_trip_through_data() -> None:
    result = Result(Status.FAILURE, data=[1], error="timeout", meta={"retries": 2})
    assert Result.from_data(result.to_data()) == result
