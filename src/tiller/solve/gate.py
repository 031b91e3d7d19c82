"""Where a solve stops for people: checkpoints, approvals, and the record of its steps.

`Gate` is what the solving loop asks at each checkpoint event and before a step
that needs a person's approval; the solver's own gate persists every request
before anyone is asked, so a decision survives a restart. `StepRecord` is where
each step is written down before it runs and after it ends, so a resumed solve
knows what already ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Protocol


class Decision(StrEnum):
    CONTINUE = "continue"  # nothing halted (no checkpoint, or one that only notifies)
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"

    @property
    def halts(self) -> bool:
        return self in (Decision.REJECTED, Decision.TIMEOUT)


class Gate(Protocol):
    async def checkpoint(self, event: str, context: Mapping[str, Any]) -> Decision:
        """Evaluate the checkpoints set on `event` with its context; wait when one halts."""
        ...

    async def approval(self, reasons: list[str], context: Mapping[str, Any]) -> Decision:
        """Ask a person to approve a step, for `reasons`, and wait for the decision."""
        ...


class StepRecord(Protocol):
    async def started(
        self, key: str, tool: str | None, effect: str | None, arguments: dict[str, Any] | None
    ) -> None: ...

    async def finished(self, key: str, outcome: dict[str, Any]) -> None: ...


class OpenGate:
    """A gate with no checkpoints that approves every step: for tests and trusted runs."""

    async def checkpoint(self, event: str, context: Mapping[str, Any]) -> Decision:
        return Decision.CONTINUE

    async def approval(self, reasons: list[str], context: Mapping[str, Any]) -> Decision:
        return Decision.APPROVED


class NoRecord:
    """A step record that keeps nothing (a solve that need not survive a restart)."""

    async def started(
        self, key: str, tool: str | None, effect: str | None, arguments: dict[str, Any] | None
    ) -> None:
        return None

    async def finished(self, key: str, outcome: dict[str, Any]) -> None:
        return None
