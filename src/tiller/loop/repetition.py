"""Notices a model calling the same tool with the same arguments again and again."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, frozen=True)
class RepetitionPolicy:
    """Identical calls: from the `nudge_after`-th the result carries a nudge; at `stop_after`
    the run ends."""

    nudge_after: int = 3
    stop_after: int = 5


def _key(name: str, arguments: dict[str, Any]) -> tuple[str, object]:
    """The same for the same arguments in any key order."""
    try:
        return name, frozenset((k, type(v), v) for k, v in arguments.items())
    except TypeError:  # unhashable values (lists, objects): fall back to canonical JSON
        return name, json.dumps(arguments, sort_keys=True, default=str)


class RepetitionGuard:
    __slots__ = ("_counts", "policy", "tripped")

    def __init__(self, policy: RepetitionPolicy) -> None:
        self.policy = policy
        self._counts: dict[tuple[str, object], int] = {}
        self.tripped: tuple[str, dict[str, Any], int] | None = None

    def record(self, name: str, arguments: dict[str, Any]) -> str | None:
        """Count one call; return a nudge to append to its result, if one is due."""
        key = _key(name, arguments)
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        if count >= self.policy.stop_after and self.tripped is None:
            self.tripped = (name, arguments, count)
        if count >= self.policy.nudge_after:
            return (
                f"[Note: this is call {count} of {name!r} with these same arguments; "
                "repeating it will not give a different result. Use the results you have, "
                "try something different, or answer.]"
            )
        return None
