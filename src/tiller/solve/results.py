"""What solving a goal returned: a status, and what came with it.

Every step of the solver returns a `Result`; `normalize_result` turns anything
else a step may return (a bare status, or a value of another kind) into one, so
the solving loop only ever branches on `Result.status`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    # The solve stops and waits for a person (a halted checkpoint, a limit, a question).
    STOP_AND_WAIT = "stop_and_wait"
    # The goal cannot go on without answers from a person; `Result.data` has the questions.
    NEEDS_CLARIFICATION = "needs_clarification"


WAITING = frozenset({Status.STOP_AND_WAIT, Status.NEEDS_CLARIFICATION})


@dataclass(slots=True)
class Result:
    """A status, with the payload (`data`), why it failed or stopped (`error`), and
    anything else worth keeping: evidence, retries, costs, timings (`meta`)."""

    status: Status
    data: Any = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def waits_for_a_person(self) -> bool:
        return self.status in WAITING

    def to_data(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "data": self.data,
            "error": self.error,
            "meta": self.meta,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Result:
        return cls(
            Status(data["status"]), data.get("data"), data.get("error"), data.get("meta") or {}
        )


def normalize_result(value: object) -> Result:
    """`value` as a `Result`: a result as it is, a status (or its name) wrapped, and
    anything else a failure that keeps the value for inspection."""
    if isinstance(value, Result):
        return value
    if isinstance(value, Status):
        return Result(value)
    if isinstance(value, str):
        try:
            return Result(Status(value.lower()))
        except ValueError:
            pass
    return Result(Status.FAILURE, error="unknown_result_type", meta={"raw": repr(value)})
