"""Plans: the steps that achieve one goal, as the model proposes them, checked.

A step either names a tool and its arguments (the solver can make the call
itself) or gives an instruction for an agent to carry out with the tools. A plan
is checked against the tools the solve has: a step naming a tool that does not
exist, or one the tool policy denies, is refused with the tools that may be used,
and the model is asked again (`tiller.solve.structured`).

A plan is well defined when it has no open questions and every step says what
to do; it is too difficult when the model says so, or when it has more steps
than one plan may have, and then its goal is decomposed into sub-goals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from tiller.cancellation import CancelToken
from tiller.errors import ToolError
from tiller.loop.config import EventSink
from tiller.models.base import Model
from tiller.solve.goal_proposal import ProposedGoal
from tiller.solve.goals import Goal
from tiller.solve.structured import StructuredAnswer, ask_structured
from tiller.tools.base import Tool
from tiller.tools.effects import effect_of
from tiller.tools.policy import ToolCheck

DEFAULT_MAX_STEPS = 12

INSTRUCTIONS = """You plan how to achieve one goal with the tools listed.
Give the steps in order. Where a step is one tool call, name the tool and give its \
arguments; otherwise give an instruction for an assistant that has the tools. Use only \
the tools listed. If something must be known before the work can be planned, list \
the questions instead of guessing. If the goal is too large for one plan, say so and \
propose sub-goals."""


class PlanError(ValueError):
    """A plan that cannot be carried out as it is (sent back to the model to fix)."""


class StepStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


class ProposedStep(BaseModel):
    description: str = Field(min_length=1)
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    instruction: str | None = None
    # How sure the planner is that this step is right, from 0 to 1 (None: not said).
    confidence: float | None = Field(default=None, ge=0, le=1)


class ProposedPlan(BaseModel):
    steps: list[ProposedStep]  # required, so an answer always says what to do (or [])
    questions: list[str] = Field(default_factory=list)
    too_difficult: bool = False
    subgoals: list[ProposedGoal] = Field(default_factory=list)


@dataclass(slots=True)
class Step:
    index: int  # 1-based, in the order the plan gives
    description: str
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    instruction: str | None = None
    effect: str | None = None  # the tool's declared effect: read, write_local, external
    confidence: float | None = None
    status: StepStatus = StepStatus.PENDING
    output: Any = None
    error: str | None = None

    @property
    def is_tool_call(self) -> bool:
        return self.tool is not None and self.arguments is not None

    @property
    def effects(self) -> list[str]:
        """The step's effects, as conditions read them (`"external" in step.effects`)."""
        return [] if self.effect is None else [self.effect]

    def to_data(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "description": self.description,
            "tool": self.tool,
            "arguments": self.arguments,
            "instruction": self.instruction,
            "effect": self.effect,
            "confidence": self.confidence,
            "status": self.status.value,
            "output": self.output,
            "error": self.error,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Step:
        return cls(
            index=data["index"],
            description=data["description"],
            tool=data.get("tool"),
            arguments=data.get("arguments"),
            instruction=data.get("instruction"),
            effect=data.get("effect"),
            confidence=data.get("confidence"),
            status=StepStatus(data.get("status", "pending")),
            output=data.get("output"),
            error=data.get("error"),
        )


@dataclass(slots=True)
class Plan:
    goal_id: str
    steps: list[Step]
    questions: list[str] = field(default_factory=list)
    too_difficult: bool = False
    subgoals: list[ProposedGoal] = field(default_factory=list)
    version: int = 1  # 2 and up: adjusted after a failed review, or edited by a person
    attempt: int = 1  # 2 and up: carried out again after a transient failure

    def step_key(self, index: int) -> str:
        """The step's name in the solve's step record: goal, plan version, attempt, step."""
        return f"{self.goal_id}/v{self.version}/r{self.attempt}/s{index}"

    def is_well_defined(self) -> bool:
        """No open questions, and every step says what to do (or, for a goal too large
        for one plan, the sub-goals it splits into)."""
        if self.questions:
            return False
        if self.too_difficult and self.subgoals:
            return True
        return bool(self.steps) and all(
            step.is_tool_call or bool(step.instruction) for step in self.steps
        )

    def is_too_difficult(self, max_steps: int = DEFAULT_MAX_STEPS) -> bool:
        return self.too_difficult or len(self.steps) > max_steps

    def to_data(self) -> dict[str, Any]:
        return {
            "goal_id": self.goal_id,
            "steps": [step.to_data() for step in self.steps],
            "questions": self.questions,
            "too_difficult": self.too_difficult,
            "subgoals": [goal.model_dump() for goal in self.subgoals],
            "version": self.version,
            "attempt": self.attempt,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Plan:
        return cls(
            goal_id=data["goal_id"],
            steps=[Step.from_data(s) for s in data.get("steps") or ()],
            questions=list(data.get("questions") or ()),
            too_difficult=bool(data.get("too_difficult")),
            subgoals=[ProposedGoal.model_validate(g) for g in data.get("subgoals") or ()],
            version=int(data.get("version", 1)),
            attempt=int(data.get("attempt", 1)),
        )


def plan_from_proposal(goal_id: str, proposal: ProposedPlan, tools: Sequence[Tool]) -> Plan:
    """The plan of a (checked) proposal, each step with its tool's declared effect."""
    by_name = {tool.name: tool for tool in tools}
    steps = [
        Step(
            index=i,
            description=step.description,
            tool=step.tool,
            arguments=step.arguments,
            instruction=step.instruction,
            effect=None if step.tool is None else effect_of(by_name[step.tool]).value,
            confidence=step.confidence,
        )
        for i, step in enumerate(proposal.steps, start=1)
    ]
    return Plan(goal_id, steps, proposal.questions, proposal.too_difficult, proposal.subgoals)


def check_plan(proposal: ProposedPlan, tools: Sequence[Tool], policy: ToolCheck | None) -> None:
    """Raise `PlanError` naming every step that uses an unknown or denied tool, or says
    nothing to do; and for a plan with nothing in it at all."""
    if not (proposal.steps or proposal.questions or proposal.too_difficult):
        raise PlanError(
            "the plan is empty: give the steps that reach the goal, or the questions that "
            "must be answered first, or say it is too difficult and give sub-goals"
        )
    by_name = {tool.name: tool for tool in tools}
    problems: list[str] = []
    for i, step in enumerate(proposal.steps, start=1):
        if step.tool is None:
            if not step.instruction:
                problems.append(f"step {i} names no tool and gives no instruction")
            continue
        tool = by_name.get(step.tool)
        if tool is None:
            available = ", ".join(sorted(by_name)) or "none"
            problems.append(f"step {i} uses {step.tool!r}, which is not a tool here ({available})")
            continue
        if policy is not None:
            try:
                policy.check(tool, step.tool)
            except ToolError:
                problems.append(f"step {i} uses {step.tool!r}, which the tool policy denies")
    if problems:
        raise PlanError("; ".join(problems))


async def create_plan(
    model: Model,
    goal: Goal,
    tools: Sequence[Tool],
    *,
    policy: ToolCheck | None = None,
    context: str = "",
    attempts: int = 3,
    emit: EventSink | None = None,
    cancel: CancelToken | None = None,
    parent_loop_id: str | None = None,
    time_left: float | None = None,
) -> tuple[Plan, StructuredAnswer[ProposedPlan]]:
    """The model's plan for `goal`, checked against `tools` and `policy`."""
    answer = await ask_structured(
        model,
        ProposedPlan,
        _planning_prompt(goal, tools, context),
        instructions=INSTRUCTIONS,
        tool_name="submit_plan",
        tool_description="Hand in the plan for the goal.",
        check=lambda proposal: check_plan(proposal, tools, policy),
        attempts=attempts,
        emit=emit,
        cancel=cancel,
        parent_loop_id=parent_loop_id,
        time_left=time_left,
        schema=plan_schema(tools),
    )
    return plan_from_proposal(goal.id, answer.value, tools), answer


def plan_schema(tools: Sequence[Tool]) -> dict[str, Any]:
    """The plan's JSON schema with a step's tool one of `tools` by name (or none), so a
    model is shown what it may name; `check_plan` still refuses any other."""
    schema = ProposedPlan.model_json_schema()
    names = [tool.name for tool in tools]
    step = schema["$defs"]["ProposedStep"]["properties"]
    step["tool"] = {"anyOf": [{"enum": names}, {"type": "null"}], "default": None}
    if not names:
        step["tool"] = {"type": "null", "default": None}
    return schema


def _planning_prompt(goal: Goal, tools: Sequence[Tool], context: str) -> str:
    lines = [f"Goal: {goal.title}"]
    if goal.description:
        lines.append(goal.description)
    if goal.criteria:
        lines.append("It is done when:")
        lines += [f"- {c.description}" for c in goal.criteria]
    if goal.inputs:
        lines.append("What earlier goals produced:")
        lines += [f"- {name}: {value}" for name, value in goal.inputs.items()]
    lines.append("Tools:")
    lines += [f"- {tool.name}: {tool.description}" for tool in tools]
    if context:
        lines += ["What is known from earlier work:", context]
    return "\n".join(lines)
