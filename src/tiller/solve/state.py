"""Everything a solve knows, as one document that is saved after every step.

A resumed solve is rebuilt from this document alone: the goal tree with every
goal's status and result, each goal's current plan with every step's status and
output, the progress ledger, what was used, the follow-ups waiting for people,
the escalations and the telemetry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tiller.solve.bounds import ResourceBounds, SolveUsage
from tiller.solve.framework import Mode
from tiller.solve.goals import GoalTree
from tiller.solve.ledger import ProgressLedger
from tiller.solve.plans import Plan

STATE_FORMAT = 1


class SolveStatus(StrEnum):
    RUNNING = "running"
    WAITING = "waiting"  # for a person: a question, a follow-up, a halted checkpoint
    DONE = "done"  # every goal completed
    FAILED = "failed"  # some goal failed and nothing more can run
    STOPPED = "stopped"  # a bound was spent, a checkpoint was rejected, or it was cancelled


@dataclass(slots=True)
class ToolStats:
    calls: int = 0
    errors: int = 0
    total_ms: float = 0.0


@dataclass(slots=True)
class SolveState:
    objectives: list[str]
    mode: Mode
    bounds: ResourceBounds
    tree: GoalTree = field(default_factory=GoalTree)
    plans: dict[str, Plan] = field(default_factory=dict)
    plan_versions: dict[str, int] = field(default_factory=dict)  # the last version per goal
    ledger: ProgressLedger = field(default_factory=ProgressLedger)
    usage: SolveUsage = field(default_factory=SolveUsage)
    status: SolveStatus = SolveStatus.RUNNING
    stop_reason: str | None = None
    current_goal: str | None = None
    follow_ups: list[dict[str, Any]] = field(default_factory=list)
    escalations: list[dict[str, Any]] = field(default_factory=list)
    tool_stats: dict[str, ToolStats] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "objectives": self.objectives,
            "mode": self.mode.value,
            "bounds": self.bounds.to_data(),
            "tree": self.tree.to_data(),
            "plans": {goal: plan.to_data() for goal, plan in self.plans.items()},
            "plan_versions": self.plan_versions,
            "ledger": self.ledger.to_data(),
            "usage": self.usage.to_data(),
            "status": self.status.value,
            "stop_reason": self.stop_reason,
            "current_goal": self.current_goal,
            "follow_ups": self.follow_ups,
            "escalations": self.escalations,
            "tool_stats": {
                name: {"calls": s.calls, "errors": s.errors, "total_ms": s.total_ms}
                for name, s in self.tool_stats.items()
            },
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SolveState:
        if data.get("format") != STATE_FORMAT:
            raise ValueError(
                f"a saved solve in format {data.get('format')!r}; this Tiller reads "
                f"format {STATE_FORMAT}"
            )
        return cls(
            objectives=list(data["objectives"]),
            mode=Mode(data["mode"]),
            bounds=ResourceBounds.from_data(data["bounds"]),
            tree=GoalTree.from_data(data["tree"]),
            plans={goal: Plan.from_data(plan) for goal, plan in data["plans"].items()},
            plan_versions=dict(data.get("plan_versions") or {}),
            ledger=ProgressLedger.from_data(data["ledger"]),
            usage=SolveUsage.from_data(data["usage"]),
            status=SolveStatus(data["status"]),
            stop_reason=data.get("stop_reason"),
            current_goal=data.get("current_goal"),
            follow_ups=list(data.get("follow_ups") or ()),
            escalations=list(data.get("escalations") or ()),
            tool_stats={
                name: ToolStats(**stats) for name, stats in (data.get("tool_stats") or {}).items()
            },
        )
