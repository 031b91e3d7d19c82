"""A solve's final status: the goal tree with every goal's status and evidence, what it
cost, how long it took, what waits for people, and the telemetry; as JSON or Markdown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tiller.solve.state import SolveState


@dataclass(slots=True, frozen=True)
class FinalStatus:
    solve_id: str
    status: str
    stop_reason: str | None
    goals: list[dict[str, Any]]
    usage: dict[str, Any]
    follow_ups: list[dict[str, Any]]
    escalations: list[dict[str, Any]]
    telemetry: dict[str, Any]

    def to_data(self) -> dict[str, Any]:
        return {
            "solve_id": self.solve_id,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "goals": self.goals,
            "usage": self.usage,
            "follow_ups": self.follow_ups,
            "escalations": self.escalations,
            "telemetry": self.telemetry,
        }

    def to_markdown(self) -> str:
        lines = [f"# Solve {self.solve_id}: {self.status}"]
        if self.stop_reason:
            lines.append(f"\nStopped: {self.stop_reason}")
        lines.append("\n## Goals\n")
        for goal in self.goals:
            indent = "  " if goal.get("parent") else ""
            lines.append(f"{indent}- **{goal['title']}** (`{goal['id']}`): {goal['status']}")
            for outcome in goal.get("evidence") or ():
                mark = "met" if outcome.get("met") else "not met"
                lines.append(f"{indent}  - {outcome.get('criterion')}: {mark}")
        usage = self.usage
        cost = f"${usage.get('cost_usd', 0):.4f}" + (" or more" if usage.get("unpriced") else "")
        lines.append("\n## Usage\n")
        lines.append(
            f"{usage.get('iterations', 0)} iterations, {usage.get('steps', 0)} steps, "
            f"{usage.get('input_tokens', 0) + usage.get('output_tokens', 0)} tokens, {cost}, "
            f"{usage.get('elapsed_s', 0):.1f} s"
        )
        if self.follow_ups:
            lines.append("\n## Waiting for you\n")
            lines += [
                f"- `{f['approval_id']}` ({f.get('goal_id')}): {f.get('error') or f.get('status')}"
                for f in self.follow_ups
            ]
        if self.escalations:
            lines.append("\n## Escalations\n")
            lines += [f"- {e['reason']}: {e.get('detail', '')}" for e in self.escalations]
        return "\n".join(lines) + "\n"


def final_status(solve_id: str, state: SolveState) -> FinalStatus:
    goals = []
    for goal in state.tree:
        review = (goal.result.meta.get("review") if goal.result is not None else None) or {}
        goals.append(
            {
                "id": goal.id,
                "title": goal.title,
                "parent": goal.parent,
                "status": goal.status.value,
                "error": None if goal.result is None else goal.result.error,
                "evidence": review.get("outcomes", []) if isinstance(review, dict) else [],
            }
        )
    telemetry = {
        "tools": {
            name: {"calls": s.calls, "errors": s.errors, "total_ms": s.total_ms}
            for name, s in state.tool_stats.items()
        },
        "ledger": {"replans": state.ledger.replans, "stalls": state.ledger.stalls},
        "mode": state.mode.value,
    }
    return FinalStatus(
        solve_id=solve_id,
        status=state.status.value,
        stop_reason=state.stop_reason,
        goals=goals,
        usage=state.usage.to_data(),
        follow_ups=list(state.follow_ups),
        escalations=list(state.escalations),
        telemetry=telemetry,
    )
