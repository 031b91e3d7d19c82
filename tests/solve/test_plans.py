"""Plans: checked against the tools and the policy, well defined or not, too difficult or not."""

from __future__ import annotations

from typing import Any

import pytest

from tiller import ToolPolicy, tool
from tiller.solve.goal_proposal import ProposedGoal
from tiller.solve.goals import Criterion, Goal
from tiller.solve.plans import (
    Plan,
    PlanError,
    ProposedPlan,
    ProposedStep,
    Step,
    check_plan,
    create_plan,
    plan_schema,
)
from tiller.testing import Reply, ScriptedModel, call
from tiller.tools.effects import ToolEffect


@tool(effect=ToolEffect.READ)
def read_file(path: str) -> str:
    """Read a file."""
    return path


@tool(effect=ToolEffect.EXTERNAL)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return "sent"


TOOLS = [read_file, send_email]


def step(**fields: Any) -> dict[str, Any]:
    return {"description": "a step", **fields}


async def test_a_plan_names_tools_with_their_effects_and_sees_the_goal() -> None:
    goal = Goal("notify", "Tell Ann", criteria=[Criterion("Ann got the report")])
    goal.inputs["report"] = "Q3 numbers"
    steps = [
        step(tool="read_file", arguments={"path": "report.txt"}),
        step(tool="send_email", arguments={"to": "ann@example.com", "body": "see report"}),
    ]
    model = ScriptedModel([Reply(calls=[call("submit_plan", steps=steps)])])
    plan, _ = await create_plan(model, goal, TOOLS)
    assert [(s.index, s.tool, s.effect) for s in plan.steps] == [
        (1, "read_file", "read"),
        (2, "send_email", "external"),
    ]
    assert plan.steps[1].effects == ["external"]
    assert plan.is_well_defined()
    prompt = model.requests[0].messages[0].text
    assert "Ann got the report" in prompt
    assert "report: Q3 numbers" in prompt
    assert "send_email: Send an email." in prompt


async def test_an_unknown_or_denied_tool_is_sent_back_to_the_model() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("submit_plan", steps=[step(tool="rm", arguments={})])]),
            Reply(calls=[call("submit_plan", steps=[step(tool="send_email", arguments={})])]),
            Reply(calls=[call("submit_plan", steps=[step(instruction="summarise the file")])]),
        ]
    )
    policy = ToolPolicy("no-mail", deny={"send_email"})
    plan, answer = await create_plan(model, Goal("g", "G"), TOOLS, policy=policy)
    assert answer.attempts == 3
    assert "'rm', which is not a tool here (read_file, send_email)" in (
        model.requests[1].messages[-1].text
    )
    assert "'send_email', which the tool policy denies" in model.requests[2].messages[-1].text
    assert plan.steps[0].instruction == "summarise the file"


def test_check_plan_lists_every_problem() -> None:
    proposal = ProposedPlan(
        steps=[ProposedStep(description="nothing"), ProposedStep(description="x", tool="nope")]
    )
    with pytest.raises(PlanError, match=r"step 1 names no tool.*; step 2 uses 'nope'"):
        check_plan(proposal, TOOLS, None)


def test_an_empty_plan_is_sent_back() -> None:
    with pytest.raises(PlanError, match="the plan is empty"):
        check_plan(ProposedPlan(steps=[]), TOOLS, None)
    check_plan(ProposedPlan(steps=[], questions=["Which customer?"]), TOOLS, None)  # asking
    check_plan(ProposedPlan(steps=[], too_difficult=True), TOOLS, None)


def test_open_questions_or_empty_steps_make_a_plan_not_well_defined() -> None:
    assert not Plan("g", [Step(1, "ask")], questions=["Which customer?"]).is_well_defined()
    assert not Plan("g", [Step(1, "vague")]).is_well_defined()
    assert not Plan("g", []).is_well_defined()
    assert Plan("g", [Step(1, "do", instruction="do it")]).is_well_defined()
    split = ProposedGoal.model_validate(
        {"id": "a", "title": "A", "acceptance_criteria": [{"description": "a"}]}
    )
    assert Plan("g", [], too_difficult=True, subgoals=[split]).is_well_defined()


def test_a_plan_is_too_difficult_when_it_says_so_or_is_too_long() -> None:
    many = [Step(i, "s", instruction="x") for i in range(1, 14)]
    assert Plan("g", many).is_too_difficult(max_steps=12)
    assert not Plan("g", many[:3]).is_too_difficult(max_steps=12)
    assert Plan("g", many[:1], too_difficult=True).is_too_difficult()


def test_a_plan_survives_a_round_trip_through_data() -> None:
    plan = Plan(
        "g",
        [Step(1, "read", tool="read_file", arguments={"path": "a"}, effect="read")],
        questions=["q"],
        version=2,
    )
    assert Plan.from_data(plan.to_data()) == plan


def test_the_plan_schema_names_the_tools_a_step_may_use() -> None:
    schema = plan_schema(TOOLS)
    tool = schema["$defs"]["ProposedStep"]["properties"]["tool"]
    assert tool["anyOf"][0]["enum"] == [t.name for t in TOOLS]
    assert plan_schema([])["$defs"]["ProposedStep"]["properties"]["tool"]["type"] == "null"
