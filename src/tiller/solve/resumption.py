"""What a resumed solve settles before it goes on: interrupted steps and answers.

A step the journal saw start and not finish was running when the process stopped. A
read-only step is simply run again. One that may have changed something is never run
again blindly: a person decides (approve: run it again; reject: go on as if it had
finished). A step the journal saw finish is done, whatever the saved state says.

Follow-ups (questions, halted checkpoints) that a person answered put their goal back
in the queue with the answer; a goal that was running is picked up again.
"""

from __future__ import annotations

from typing import Any

from tiller.solve.approval_gate import ApprovalGate
from tiller.solve.gate import Decision
from tiller.solve.goals import GoalStatus
from tiller.solve.plans import StepStatus
from tiller.solve.state import SolveState
from tiller.store import Store
from tiller.tools.effects import ToolEffect

RERUN_QUESTION = (
    "it was running when the solve stopped, and it may have taken effect: approve to run "
    "it again, reject to go on as if it had finished"
)
NOT_RUN_AGAIN = "(interrupted; not run again, at a person's decision)"


async def settle_interrupted_steps(
    store: Store, solve_id: str, state: SolveState, gate: ApprovalGate
) -> None:
    """Bring each started step of `state`'s plans in line with the step journal."""
    journal = {entry.step_key: entry for entry in await store.steps.steps(solve_id)}
    for goal_id, plan in state.plans.items():
        for step in plan.steps:
            key = plan.step_key(step.index)
            entry = journal.get(key)
            if entry is None or step.status is StepStatus.DONE:
                continue
            if entry.finished:  # settled at an earlier resume that stopped before saving
                outcome = entry.outcome if isinstance(entry.outcome, dict) else {}
                ok = bool(outcome.get("ok"))
                step.status = StepStatus.DONE if ok else StepStatus.FAILED
                step.output = outcome.get("output") if ok else None
                continue
            if step.effect in (None, ToolEffect.READ.value) and step.tool is not None:
                step.status = StepStatus.PENDING  # read-only: safe to run again
                continue
            asked = {"goal": goal_id, "step": step, "interrupted": True}
            if await gate.approval([RERUN_QUESTION], asked) is Decision.APPROVED:
                step.status = StepStatus.PENDING
                continue
            step.status = StepStatus.DONE
            step.output = NOT_RUN_AGAIN
            await store.steps.step_finished(
                solve_id, key, {"ok": True, "output": step.output, "settled": True}
            )


async def take_answers(store: Store, state: SolveState) -> None:
    """Answered follow-ups put their goal back in the queue (or fail it, when rejected
    without a word); unanswered ones stay."""
    waiting: list[dict[str, Any]] = []
    for follow_up in state.follow_ups:
        approval = await store.approvals.get(follow_up["approval_id"])
        if not approval.decided:
            waiting.append(follow_up)
            continue
        goal_id = str(follow_up.get("goal_id"))
        if goal_id in state.tree:
            goal = state.tree[goal_id]
            answers = goal.inputs.setdefault("answers", [])
            answers.append(approval.comment or approval.status.value)
            if approval.status.value == "approved" or approval.comment:
                goal.status = GoalStatus.PENDING
                state.plans.pop(goal_id, None)  # plan again with the answers
            else:
                goal.status = GoalStatus.FAILED
    state.follow_ups = waiting
    for goal in state.tree:
        if goal.status is GoalStatus.ACTIVE:
            goal.status = GoalStatus.PENDING  # interrupted mid-goal: pick it up again
