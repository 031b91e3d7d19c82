"""Building the goal tree: the model proposes goals for the user's objectives.

The proposal is a structured answer (`tiller.solve.structured`): each goal with
an id, what it is, the goals it depends on, acceptance criteria (each optionally
with a check that can be run) and the model's estimates of its value and
feasibility. A proposal whose goals depend on unknown goals or on each other in
a cycle is sent back to the model with the problem, like any invalid answer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tiller.cancellation import CancelToken
from tiller.loop.config import EventSink
from tiller.models.base import Model
from tiller.solve.goals import Criterion, Goal, GoalTree
from tiller.solve.structured import StructuredAnswer, ask_structured

INSTRUCTIONS = """You break a user's objectives into goals.
Give each goal a short id (lowercase words joined by underscores), a title, what it \
involves, the ids of the goals that must be done before it, and one or more acceptance \
criteria: what must be true when it is done. Where a criterion can be checked by a \
program, say how: a command that must succeed, a file that must contain a text, or a \
tool whose answer must contain a text. Estimate each goal's value (how much of the \
objectives it achieves) and feasibility (how likely it is to succeed), from 0 to 1.
Do not make up goals the objectives do not need."""

SUBMIT_DESCRIPTION = "Hand in the goals for the objectives."


class ProposedCheck(BaseModel):
    kind: Literal["command_succeeds", "file_contains", "tool_answer"]
    command: str | None = None
    path: str | None = None
    text: str | None = None
    tool: str | None = None
    arguments: dict[str, object] | None = None


class ProposedCriterion(BaseModel):
    description: str = Field(min_length=1)
    check: ProposedCheck | None = None


class ProposedGoal(BaseModel):
    id: str = Field(min_length=1, max_length=64)
    title: str = Field(min_length=1)
    description: str = ""
    depends_on: list[str] = Field(default_factory=list)
    acceptance_criteria: list[ProposedCriterion] = Field(min_length=1)
    value: float = Field(default=0.5, ge=0, le=1)
    feasibility: float = Field(default=0.5, ge=0, le=1)


class GoalProposal(BaseModel):
    goals: list[ProposedGoal] = Field(min_length=1)

    def to_tree(self) -> GoalTree:
        """The goal tree; a `GoalTreeError` (a `ValueError`) when it is not a valid one."""
        return GoalTree(_goal(proposed) for proposed in self.goals)


async def construct_goal_tree(
    model: Model,
    objectives: list[str],
    *,
    context: str = "",
    attempts: int = 3,
    emit: EventSink | None = None,
    cancel: CancelToken | None = None,
    parent_loop_id: str | None = None,
    time_left: float | None = None,
) -> tuple[GoalTree, StructuredAnswer[GoalProposal]]:
    """The goal tree the model proposes for `objectives` (with what it learned before,
    in `context`); `StructuredOutputError` when it gives no valid tree."""
    listed = "\n".join(f"- {objective}" for objective in objectives)
    prompt = f"Objectives:\n{listed}"
    if context:
        prompt += f"\n\nWhat is known from earlier work:\n{context}"
    answer = await ask_structured(
        model,
        GoalProposal,
        prompt,
        instructions=INSTRUCTIONS,
        tool_name="propose_goals",
        tool_description=SUBMIT_DESCRIPTION,
        check=_valid_tree,
        attempts=attempts,
        emit=emit,
        cancel=cancel,
        parent_loop_id=parent_loop_id,
        time_left=time_left,
    )
    return answer.value.to_tree(), answer


def _valid_tree(proposal: GoalProposal) -> None:
    proposal.to_tree()


def _goal(proposed: ProposedGoal) -> Goal:
    return Goal(
        id=proposed.id,
        title=proposed.title,
        description=proposed.description,
        depends_on=tuple(proposed.depends_on),
        criteria=[_criterion(c) for c in proposed.acceptance_criteria],
        value=proposed.value,
        feasibility=proposed.feasibility,
    )


def _criterion(proposed: ProposedCriterion) -> Criterion:
    check = proposed.check
    if check is None:
        return Criterion(proposed.description)
    fields = check.model_dump(exclude={"kind"}, exclude_none=True)
    return Criterion(proposed.description, check.kind, fields)
