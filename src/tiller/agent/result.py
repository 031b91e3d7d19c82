"""`RunResult`: what one `Agent.run` produced."""

from __future__ import annotations

from dataclasses import dataclass

from tiller.errors import TillerError
from tiller.events import RunStats
from tiller.messages import AssistantMessage, Message, StopReason, Usage


class RunFailedError(TillerError):
    """Raised by `RunResult.raise_for_error()` when a run ended in error."""


@dataclass(slots=True)
class RunResult:
    messages: list[Message]
    stats: RunStats

    @property
    def text(self) -> str:
        """The text of the last assistant message of the run ("" if there is none)."""
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                return message.text
        return ""

    @property
    def usage(self) -> Usage:
        return self.stats.usage

    @property
    def cost_usd(self) -> float | None:
        return self.stats.usage.cost_usd

    @property
    def stop_reason(self) -> StopReason:
        return self.stats.stop_reason

    @property
    def stopped_by(self) -> str | None:
        return self.stats.stopped_by

    @property
    def error(self) -> str | None:
        return self.stats.error

    @property
    def turns(self) -> int:
        return self.stats.turns

    def raise_for_error(self) -> RunResult:
        """Raise `RunFailedError` if the run ended in error; return self otherwise."""
        if self.stats.stop_reason == "error":
            raise RunFailedError(self.stats.error or "the run failed")
        return self
