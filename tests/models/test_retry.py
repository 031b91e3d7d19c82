import pytest

from tiller.errors import AuthError, NetworkError, OverloadedError, RateLimitError
from tiller.models.retry import RetryPolicy

POLICY = RetryPolicy(max_retries=2, base_delay_s=1.0, max_delay_s=8.0, retry_after_cap_s=10.0)


@pytest.mark.parametrize("kind", [RateLimitError, OverloadedError])
def test_retry_after_is_honoured_up_to_the_cap(
    kind: type[RateLimitError | OverloadedError],
) -> None:
    assert POLICY.delay_s(kind("x", retry_after=3.0), 1) == 3.0
    assert POLICY.delay_s(kind("x", retry_after=3.0), 4) == 3.0  # not the backoff of retry 4
    assert POLICY.delay_s(kind("x", retry_after=120.0), 1) == 10.0
    assert POLICY.delay_s(kind("x", retry_after=0.0), 1) == 0.0


@pytest.mark.parametrize(
    "error",
    [OverloadedError("x"), RateLimitError("x"), NetworkError("x")],
    ids=["overloaded", "rate_limited", "network"],
)
def test_without_retry_after_the_backoff_doubles_with_jitter(error: Exception) -> None:
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (6, 8.0)]:
        for _ in range(20):
            assert ceiling / 2 <= POLICY.delay_s(error, attempt) <= ceiling


def test_only_retryable_errors_are_retried_and_only_so_often() -> None:
    assert POLICY.should_retry(OverloadedError("x", retry_after=1.0), 0)
    assert POLICY.should_retry(NetworkError("x"), 1)
    assert not POLICY.should_retry(NetworkError("x"), 2)
    assert not POLICY.should_retry(AuthError("x"), 0)
    assert not POLICY.should_retry(ValueError("x"), 0)
