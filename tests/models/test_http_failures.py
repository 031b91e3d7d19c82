import email.utils

import pytest

from tiller.errors import (
    APIError,
    AuthError,
    ContextOverflowError,
    ModelError,
    NetworkError,
    OverloadedError,
    RateLimitError,
)
from tiller.models.http_failures import (
    classify_http_failure,
    classify_stream_error,
    parse_retry_after,
    retry_after_from,
    stream_cut,
)


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, "", ContextOverflowError),
        (413, None, ContextOverflowError),
        (
            400,
            '{"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}}',
            ContextOverflowError,
        ),
        (400, '{"error": {"message": "messages: field required"}}', APIError),
        (429, "slow down", RateLimitError),
        (503, "busy", OverloadedError),
        (529, '{"type": "overloaded_error"}', OverloadedError),
        (401, "invalid x-api-key", AuthError),
        (403, "forbidden", AuthError),
        (500, "oops", NetworkError),
        (502, "bad gateway", NetworkError),
        (404, "model not found", APIError),
    ],
)
def test_status_and_body_classify(
    status: int, body: str | None, expected: type[ModelError]
) -> None:
    error = classify_http_failure(status, body, provider="p")
    assert type(error) is expected
    assert error.status_code == status
    assert error.provider == "p"


def test_retryable_kinds() -> None:
    assert classify_http_failure(429, "x", provider="p").retryable
    assert classify_http_failure(529, "x", provider="p").retryable
    assert classify_http_failure(500, "x", provider="p").retryable
    assert not classify_http_failure(401, "x", provider="p").retryable
    assert not classify_http_failure(400, "", provider="p").retryable


def test_auth_message_says_what_to_do() -> None:
    assert "check the key" in str(classify_http_failure(401, "bad key", provider="anthropic"))


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("1.5") == 1.5
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    assert parse_retry_after("-3") == 0.0


def test_rate_limit_carries_retry_after_from_headers() -> None:
    error = classify_http_failure(429, "x", provider="p", headers={"Retry-After": "3"})
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 3.0
    assert retry_after_from({"retry-after-ms": "250", "retry-after": "9"}) == 0.25


@pytest.mark.parametrize("status", [503, 529])
def test_overloaded_carries_retry_after_from_headers(status: int) -> None:
    error = classify_http_failure(status, "busy", provider="p", headers={"Retry-After": "4"})
    assert isinstance(error, OverloadedError)
    assert error.retry_after == 4.0
    bare = classify_http_failure(status, "busy", provider="p")
    assert isinstance(bare, OverloadedError)
    assert bare.retry_after is None


@pytest.mark.parametrize(
    ("error_type", "message", "expected"),
    [
        ("overloaded_error", "Overloaded", OverloadedError),
        ("rate_limit_error", "slow", RateLimitError),
        ("api_error", "internal", NetworkError),
        ("invalid_request_error", "prompt is too long", ContextOverflowError),
        ("invalid_request_error", "bad field", APIError),
        ("authentication_error", "no", AuthError),
    ],
)
def test_in_stream_errors_classify_like_their_http_twins(
    error_type: str, message: str, expected: type[ModelError]
) -> None:
    assert type(classify_stream_error(error_type, message, provider="p")) is expected


def test_stream_cut_is_a_retryable_network_error() -> None:
    error = stream_cut("anthropic", "message_stop")
    assert isinstance(error, NetworkError)
    assert error.retryable
    assert "message_stop" in str(error)
