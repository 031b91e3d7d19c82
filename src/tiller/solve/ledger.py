"""The progress ledger: after each step, is the goal done, looping, progressing, and what next.

Every step's outcome is recorded with a signature (its tool, arguments and
result). The ledger then answers four questions:

- **done**: the goal's review passed;
- **looping**: the same signature appears `loop_after` times in the window of
  recent steps (the same call giving the same answer again);
- **progressing**: the step succeeded with a signature not seen before in the
  window (new work, not a repeat);
- **next**: `continue`, `replan` after `stall_limit` steps in a row without
  progress, or `escalate` once the goal has been re-planned `replan_limit`
  times and stalls again.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Next(StrEnum):
    CONTINUE = "continue"
    REPLAN = "replan"
    ESCALATE = "escalate"


@dataclass(slots=True, frozen=True)
class LedgerEntry:
    step: str
    signature: str
    succeeded: bool
    looping: bool
    progressing: bool
    next: Next


@dataclass(slots=True)
class ProgressLedger:
    stall_limit: int = 3
    replan_limit: int = 2
    loop_after: int = 3
    window: int = 10
    stalls: int = 0
    replans: int = 0
    done: bool = False
    entries: list[LedgerEntry] = field(default_factory=list)
    _recent: deque[str] = field(default_factory=deque)

    def record(self, step: str, succeeded: bool, *signature_parts: Any) -> LedgerEntry:
        """Record one step's outcome and decide what comes next."""
        signature = _signature(signature_parts)
        repeats = sum(1 for s in self._recent if s == signature)
        looping = repeats + 1 >= self.loop_after
        progressing = succeeded and repeats == 0
        self._remember(signature)
        self.stalls = 0 if progressing else self.stalls + 1
        decision = Next.CONTINUE
        if looping or self.stalls >= self.stall_limit:
            decision = Next.ESCALATE if self.replans >= self.replan_limit else Next.REPLAN
        entry = LedgerEntry(step, signature, succeeded, looping, progressing, decision)
        self.entries.append(entry)
        return entry

    def replanned(self) -> None:
        """A new plan replaces the stalled one: its steps start from a clean slate."""
        self.replans += 1
        self.stalls = 0
        self._recent.clear()

    def to_data(self) -> dict[str, Any]:
        return {
            "stall_limit": self.stall_limit,
            "replan_limit": self.replan_limit,
            "loop_after": self.loop_after,
            "window": self.window,
            "stalls": self.stalls,
            "replans": self.replans,
            "done": self.done,
            "entries": [
                {
                    "step": e.step,
                    "signature": e.signature,
                    "succeeded": e.succeeded,
                    "looping": e.looping,
                    "progressing": e.progressing,
                    "next": e.next.value,
                }
                for e in self.entries
            ],
            "recent": list(self._recent),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ProgressLedger:
        entries = [
            LedgerEntry(
                e["step"],
                e["signature"],
                e["succeeded"],
                e["looping"],
                e["progressing"],
                Next(e["next"]),
            )
            for e in data.get("entries") or ()
        ]
        ledger = cls(
            stall_limit=data["stall_limit"],
            replan_limit=data["replan_limit"],
            loop_after=data["loop_after"],
            window=data["window"],
            stalls=data["stalls"],
            replans=data["replans"],
            done=data["done"],
            entries=entries,
        )
        ledger._recent.extend(data.get("recent") or ())
        return ledger

    def _remember(self, signature: str) -> None:
        self._recent.append(signature)
        while len(self._recent) > self.window:
            self._recent.popleft()


def _signature(parts: tuple[Any, ...]) -> str:
    text = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
