"""Errors as RFC 9457 problem details: `application/problem+json`, never a stack trace.

Every error the service answers has a stable `type` per kind of error
(`urn:tiller:problem:not-found`, ...), the HTTP `status`, a short `title` that is the
same for every error of the kind, a `detail` for this occurrence, and the request's id
(`request_id`, also in the logs and the `X-Request-ID` header). Clients branch on `type`.

A route raises `Problem(kind, detail)`; unexpected exceptions become `internal` with
the request id to quote, and their traceback goes to the log only (`RequestIds`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from tiller.server.request_ids import current_request_id
from tiller.store.errors import InvalidDocumentError, RecordNotFound
from tiller.store.sealing import SealingError

MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True, slots=True)
class Kind:
    status: int
    title: str


KINDS: dict[str, Kind] = {
    "validation": Kind(422, "The request is not valid"),
    "bad-request": Kind(400, "The request cannot be read"),
    "unauthenticated": Kind(401, "Authentication is required"),
    "forbidden": Kind(403, "Not allowed"),
    "not-found": Kind(404, "Not found"),
    "method-not-allowed": Kind(405, "Method not allowed"),
    "conflict": Kind(409, "Conflict with the current state"),
    "gone": Kind(410, "No longer available"),
    "payload-too-large": Kind(413, "The request is too large"),
    "unsupported-media-type": Kind(415, "Unsupported media type"),
    "rate-limited": Kind(429, "Too many requests"),
    "model-failure": Kind(502, "The model failed"),
    "unavailable": Kind(503, "The service is not ready"),
    "internal": Kind(500, "Internal error"),
}
_BY_STATUS = {kind.status: name for name, kind in KINDS.items()}


def problem_type(kind: str) -> str:
    return f"urn:tiller:problem:{kind}"


class Problem(Exception):
    """An error answered as problem details. `extra` members are added to the body;
    `headers` to the response (`Retry-After`, `WWW-Authenticate`)."""

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown problem kind {kind!r}")
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def not_found(what: str, ident: str) -> Problem:
    return Problem("not-found", f"no {what} {ident!r}")


def problem_response(problem: Problem) -> JSONResponse:
    kind = KINDS[problem.kind]
    body: dict[str, Any] = {
        "type": problem_type(problem.kind),
        "title": kind.title,
        "status": kind.status,
        "detail": problem.detail,
        **problem.extra,
    }
    request_id = current_request_id()
    if request_id is not None:
        body["request_id"] = request_id
    return JSONResponse(body, kind.status, headers=problem.headers, media_type=MEDIA_TYPE)


def install_problem_handlers(app: FastAPI) -> None:
    """Answer every error of `app` as problem details."""

    async def on_problem(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Problem)
        return problem_response(exc)

    async def on_validation(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {"location": [str(p) for p in e.get("loc", ())], "message": str(e.get("msg"))}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"location": [], "message": "invalid"}
        where = ".".join(first["location"][1:]) or "request"
        detail = f"{where}: {first['message']}"
        return problem_response(Problem("validation", detail, errors=errors))

    async def on_http(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        kind = _BY_STATUS.get(exc.status_code, "bad-request")
        detail = exc.detail if isinstance(exc.detail, str) else KINDS[kind].title
        return problem_response(Problem(kind, detail, headers=dict(exc.headers or {})))

    async def on_not_found(_: Request, exc: Exception) -> JSONResponse:
        return problem_response(Problem("not-found", str(exc)))

    async def on_bad_document(_: Request, exc: Exception) -> JSONResponse:
        return problem_response(Problem("validation", str(exc)))

    async def on_unsealable(_: Request, exc: Exception) -> JSONResponse:
        return problem_response(Problem("validation", str(exc)))

    async def on_database_busy(_: Request, exc: Exception) -> JSONResponse:
        # Every connection stayed in use for the pool's timeout: nothing of the request
        # was done, and it may be sent again.
        detail = "the database is busy: every connection is in use; try again shortly"
        return problem_response(Problem("unavailable", detail, headers={"Retry-After": "1"}))

    app.add_exception_handler(SealingError, on_unsealable)
    app.add_exception_handler(sqlalchemy.exc.TimeoutError, on_database_busy)
    app.add_exception_handler(RecordNotFound, on_not_found)
    app.add_exception_handler(InvalidDocumentError, on_bad_document)
    app.add_exception_handler(Problem, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)


def internal_error() -> JSONResponse:
    """The answer to an unexpected exception (`RequestIds` logs its traceback)."""
    detail = "the server failed on this request; quote its request_id when reporting it"
    return problem_response(Problem("internal", detail))
