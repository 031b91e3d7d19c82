"""Notices a model calling the same tool with the same arguments again and again.

Only an unbroken run of identical calls counts: the same tool with the same
arguments (in any key order), with no other call in between. A cycle such as
edit → run_tests → edit → run_tests is ordinary work and is never counted, and
neither are A-B-A-B cycles: any different call resets the count.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tiller.messages import ToolCall


@dataclass(slots=True, frozen=True)
class RepetitionPolicy:
    """Identical consecutive calls: from the `nudge_after`-th in a row the result carries
    a nudge; at `stop_after` in a row the run ends."""

    nudge_after: int = 3
    stop_after: int = 5


def _key(name: str, arguments: dict[str, Any]) -> tuple[str, object]:
    """The same for the same arguments in any key order."""
    try:
        return name, frozenset((k, type(v), v) for k, v in arguments.items())
    except TypeError:  # unhashable values (lists, objects): fall back to canonical JSON
        return name, json.dumps(arguments, sort_keys=True, default=str)


class RepetitionGuard:
    __slots__ = ("_last", "_streak", "policy", "tripped")

    def __init__(self, policy: RepetitionPolicy) -> None:
        self.policy = policy
        # The previous call as made (name, a copy of its arguments): most calls differ
        # from it, which plain equality tells without building either's key.
        self._last: tuple[str, dict[str, Any]] | None = None
        self._streak = 0
        self.tripped: tuple[str, dict[str, Any], int] | None = None

    def record(self, name: str, arguments: dict[str, Any]) -> str | None:
        """Count one call; return a nudge to append to its result, if one is due."""
        last = self._last
        same = (
            last is not None
            and name == last[0]
            and arguments == last[1]
            and _key(name, arguments) == _key(*last)
        )
        self._streak = self._streak + 1 if same else 1
        self._last = (name, dict(arguments))
        count = self._streak
        if count >= self.policy.stop_after and self.tripped is None:
            self.tripped = (name, arguments, count)
        if count >= self.policy.nudge_after:
            return (
                f"[Note: this is call {count} in a row of {name!r} with these same arguments; "
                "repeating it will not give a different result. Use the results you have, "
                "try something different, or answer.]"
            )
        return None

    def record_calls(self, calls: Sequence[ToolCall]) -> list[str | None]:
        """Count the calls of one assistant message in the order the model made them."""
        return [self.record(c.name, c.arguments) for c in calls]
