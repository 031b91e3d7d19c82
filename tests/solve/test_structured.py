"""Structured answers: validated through a tool call, sent back with the problems, bounded."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel, Field

from tiller.errors import AuthError
from tiller.messages import ToolResultMessage, Usage, UserMessage
from tiller.solve.structured import ANSWER_TOKENS, StructuredOutputError, ask_structured
from tiller.testing import Fail, Reply, ScriptedModel, call


class Plan(BaseModel):
    steps: list[str] = Field(min_length=1)
    risky: bool = False


def no_deleting(plan: Plan) -> None:
    if any("delete" in step for step in plan.steps):
        raise ValueError("a step deletes something, which this task forbids")


async def ask(model: ScriptedModel, attempts: int = 3) -> tuple[Plan, int]:
    answer = await ask_structured(
        model,
        Plan,
        "Plan the release.",
        instructions="You plan.",
        tool_name="submit_plan",
        tool_description="Hand in the plan.",
        check=no_deleting,
        attempts=attempts,
    )
    return answer.value, answer.attempts


async def test_a_valid_call_is_the_answer_in_one_model_call() -> None:
    model = ScriptedModel([Reply(calls=[call("submit_plan", steps=["build", "ship"])])])
    plan, attempts = await ask(model)
    assert plan == Plan(steps=["build", "ship"])
    assert attempts == 1
    assert len(model.requests) == 1
    (tool,) = model.requests[0].tools
    assert tool.name == "submit_plan"
    assert tool.parameters["properties"]["steps"]["type"] == "array"


async def test_an_invalid_answer_goes_back_with_the_problems_and_is_retried() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("submit_plan", steps=[])]),
            Reply(calls=[call("submit_plan", steps=["delete the database"])]),
            Reply(calls=[call("submit_plan", steps=["build"])]),
        ]
    )
    plan, attempts = await ask(model)
    assert plan.steps == ["build"]
    assert attempts == 3
    first_error = model.requests[1].messages[-1]
    assert isinstance(first_error, ToolResultMessage)
    assert first_error.is_error
    assert "steps: List should have at least 1 item" in first_error.text
    second_error = model.requests[2].messages[-1]
    assert "a step deletes something" in second_error.text


async def test_json_written_as_text_is_accepted() -> None:
    model = ScriptedModel(['Here it is: {"steps": ["build", "test"], "risky": true}'])
    plan, _ = await ask(model)
    assert plan == Plan(steps=["build", "test"], risky=True)


async def test_plain_text_is_answered_with_a_request_to_call_the_tool() -> None:
    model = ScriptedModel(["I would build it.", Reply(calls=[call("submit_plan", steps=["b"])])])
    _, attempts = await ask(model)
    assert attempts == 2
    nudge = model.requests[1].messages[-1]
    assert isinstance(nudge, UserMessage)
    assert "calling the tool submit_plan" in nudge.text


async def test_no_valid_answer_within_the_attempts_is_an_error_with_the_problems() -> None:
    model = ScriptedModel([Reply(calls=[call("submit_plan", steps=[])])] * 2)
    with pytest.raises(StructuredOutputError, match="no valid answer for submit_plan in 2") as info:
        await ask(model, attempts=2)
    assert info.value.problems == [
        "steps: List should have at least 1 item after validation, not 0"
    ]
    assert len(model.requests) == 2


async def test_a_failing_model_ends_the_attempts_at_once() -> None:
    model = ScriptedModel([Fail(AuthError("bad key"))])
    with pytest.raises(StructuredOutputError, match="the model call failed"):
        await ask(model)
    assert len(model.requests) == 1


async def test_failed_attempts_report_what_they_spent() -> None:
    spent = Usage(input_tokens=100, output_tokens=7)
    model = ScriptedModel([Reply("no idea", usage=spent)] * 2)
    with pytest.raises(StructuredOutputError) as info:
        await ask(model, attempts=2)
    assert (info.value.usage.input_tokens, info.value.usage.output_tokens) == (200, 14)


async def test_the_time_left_stops_a_model_call_that_runs_past_it() -> None:
    slow = ScriptedModel([Reply("thinking " * 200, chunk_size=5, delay_s=0.05)] * 3)
    started = time.monotonic()
    with pytest.raises(StructuredOutputError, match="the time for it ran out"):
        await ask_structured(
            slow,
            Plan,
            "Plan the release.",
            instructions="You plan.",
            tool_name="submit_plan",
            tool_description="Hand in the plan.",
            time_left=0.3,
        )
    assert time.monotonic() - started < 2  # the reply alone would take 10 s
    assert len(slow.requests) == 1


async def test_the_model_is_made_to_call_the_tool_with_room_for_the_answer() -> None:
    model = ScriptedModel([Reply(calls=[call("submit_plan", steps=["b"])])])
    narrow = {"type": "object", "properties": {"steps": {"type": "array", "maxItems": 2}}}
    await ask_structured(
        model,
        Plan,
        "Plan the release.",
        instructions="You plan.",
        tool_name="submit_plan",
        tool_description="Hand in the plan.",
        schema=narrow,
    )
    (request,) = model.requests
    assert request.settings.tool_choice == "submit_plan"
    assert request.settings.max_tokens == ANSWER_TOKENS
    assert request.tools[0].parameters == narrow
