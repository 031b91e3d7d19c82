"""Every error is an RFC 9457 problem with a stable type; no traceback reaches a client."""

from __future__ import annotations

import io
import json

import sqlalchemy.exc
from fastapi import Body

from tests.server.live_server import live_server
from tiller.server.app import create_app
from tiller.server.logs import configure_logging
from tiller.server.problems import Problem
from tiller.server.settings import ServerSettings

PROBLEM_JSON = "application/problem+json"


async def test_errors_are_problem_details_with_a_stable_type(settings: ServerSettings) -> None:
    app = create_app(settings)

    @app.get("/conflict")
    async def conflict() -> None:
        raise Problem("conflict", "the session is running", run_id="r1")

    @app.post("/echo")
    async def echo(count: int = Body(embed=True)) -> int:
        return count

    async with live_server(settings, app) as server:
        answers = {
            "conflict": await server.client.get("/conflict"),
            "validation": await server.client.post("/echo", json={"count": "many"}),
            "not-found": await server.client.get("/no/such/route"),
            "method-not-allowed": await server.client.delete("/health"),
        }
    for kind, answer in answers.items():
        assert answer.headers["content-type"] == PROBLEM_JSON, kind
        body = answer.json()
        assert body["type"] == f"urn:tiller:problem:{kind}"
        assert body["status"] == answer.status_code
        assert body["title"]
        assert body["request_id"] == answer.headers["x-request-id"]
    assert answers["conflict"].status_code == 409
    assert answers["conflict"].json()["run_id"] == "r1"
    validation = answers["validation"].json()
    assert validation["status"] == 422
    assert validation["detail"].startswith("count:")
    assert validation["errors"][0]["location"] == ["body", "count"]


async def test_an_unexpected_error_is_logged_with_its_traceback_and_answered_without(
    settings: ServerSettings,
) -> None:
    app = create_app(settings)

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals: tlr_abc123_leaked")

    logs = io.StringIO()
    restore = configure_logging("info", logs)
    try:
        async with live_server(settings, app) as server:
            answer = await server.client.get("/boom", headers={"X-Request-ID": "req-42"})
    finally:
        restore()
    assert answer.status_code == 500
    body = answer.json()
    assert body["type"] == "urn:tiller:problem:internal"
    assert body["request_id"] == "req-42"
    assert "secret internals" not in answer.text
    assert "Traceback" not in answer.text
    lines = [json.loads(line) for line in logs.getvalue().splitlines()]
    error = next(line for line in lines if line["message"] == "unexpected error")
    assert error["request_id"] == "req-42"
    assert "RuntimeError: secret internals" in error["exc"]
    assert "tlr_abc123_leaked" not in logs.getvalue()  # a key-like string is redacted
    access = next(line for line in lines if line["message"] == "request")
    assert (access["path"], access["status"]) == ("/boom", 500)


async def test_a_request_id_is_made_when_the_client_gives_none_or_a_bad_one(
    settings: ServerSettings,
) -> None:
    async with live_server(settings) as server:
        plain = await server.client.get("/health")
        odd = await server.client.get("/health", headers={"X-Request-ID": "a b\tc"})
    assert len(plain.headers["x-request-id"]) == 32
    assert odd.headers["x-request-id"] != "a b\tc"


async def test_a_database_with_every_connection_in_use_is_a_retryable_503(
    settings: ServerSettings,
) -> None:
    app = create_app(settings)

    @app.get("/busy")
    async def busy() -> None:  # what SQLAlchemy's pool raises after its timeout
        raise sqlalchemy.exc.TimeoutError("QueuePool limit of size 5 overflow 10 reached")

    async with live_server(settings, app) as server:
        answer = await server.client.get("/busy")
    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "1"
    assert answer.json()["type"] == "urn:tiller:problem:unavailable"
    assert "QueuePool" not in answer.text
