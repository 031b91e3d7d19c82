"""Rollback: undo actions prepared before a tool runs, and the journal that keeps them.

A tool that can be undone has `prepare_rollback(arguments)`: called before
`execute`, it captures what is needed (e.g. a file's previous content) and
returns a `Rollback`, or None when there is nothing to undo. When a loop is
given a `RollbackJournal` (`LoopConfig.rollbacks`, `Agent(rollbacks=...)`),
every such call records its rollback there, keyed by tool call id, before the
tool runs, so a failed or unwanted step can be undone:

    journal = RollbackJournal()
    agent = Agent(model, tools=..., rollbacks=journal)
    mark = journal.mark()
    result = await agent.run("refactor utils.py")
    if not acceptable(result):
        await journal.roll_back(since=mark)   # newest first

Rollbacks are kept apart from the history on purpose: they hold live state
(bytes, callables) that does not belong in saved messages or events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


class Rollback:
    """One prepared undo action. `apply()` runs it at most once."""

    __slots__ = ("_undo", "applied", "description")

    def __init__(self, description: str, undo: Callable[[], Awaitable[None]]) -> None:
        self.description = description
        self._undo = undo
        self.applied = False

    def __repr__(self) -> str:
        return f"Rollback({self.description!r}, applied={self.applied})"

    async def apply(self) -> None:
        if self.applied:
            return
        await self._undo()
        self.applied = True


@runtime_checkable
class Reversible(Protocol):
    async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback | None:
        """Capture what undoing `execute(arguments)` needs, before it runs.

        Raises (e.g. `ToolError`) when the call cannot run, so it is not run.
        """
        ...


@dataclass(slots=True)
class RollbackEntry:
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    rollback: Rollback


@dataclass(slots=True)
class RollbackFailure:
    entry: RollbackEntry
    error: str


class RollbackJournal:
    """The rollbacks prepared during one or more runs, oldest first."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[RollbackEntry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def record(
        self, tool_call_id: str, tool_name: str, arguments: dict[str, Any], rollback: Rollback
    ) -> None:
        self.entries.append(RollbackEntry(tool_call_id, tool_name, dict(arguments), rollback))

    def mark(self) -> int:
        """A position to roll back to later (`roll_back(since=mark)`)."""
        return len(self.entries)

    def for_call(self, tool_call_id: str) -> Rollback | None:
        for entry in self.entries:
            if entry.tool_call_id == tool_call_id:
                return entry.rollback
        return None

    async def roll_back(self, since: int = 0) -> list[RollbackFailure]:
        """Undo the entries from `since` on, newest first, and drop them from the journal.

        A rollback that fails does not stop the others; the failures are returned.
        """
        taken = self.entries[since:]
        del self.entries[since:]
        failures: list[RollbackFailure] = []
        for entry in reversed(taken):
            try:
                await entry.rollback.apply()
            except Exception as exc:
                failures.append(RollbackFailure(entry, f"{type(exc).__name__}: {exc}"))
        return failures

    def forget(self, since: int = 0) -> None:
        """Drop entries from `since` on without undoing them (the step was accepted)."""
        del self.entries[since:]
