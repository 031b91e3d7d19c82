"""The embedded-model tier of the solver's benchmark, counted without the model: a model
that answers badly first (an empty goal list, a plan naming a tool that does not exist and
one the policy denies) and well after, and a model that never answers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from benchmarks.solver import LOCAL_DENIED, TaskModel, run_local_task
from benchmarks.solver_tasks.observed_model import ObservedModel, named_tools, refusable
from benchmarks.solver_tasks.tasks import TASKS

from tiller.models.base import ModelRequest
from tiller.testing import FunctionModel, Reply, call

TASK = next(t for t in TASKS if t.id == "refund_one_mouse")  # one refund to approve
DENIED = next(iter(LOCAL_DENIED))


class Garbage:
    """The oracle, after one bad answer to each kind of request."""

    def __init__(self) -> None:
        self.oracle = TaskModel(TASK)
        self.seen: set[str] = set()

    def reply(self, request: ModelRequest) -> Reply | str:
        asked = request.tools[0].name if len(request.tools) == 1 else ""
        first = asked not in self.seen
        self.seen.add(asked)
        if first and asked == "propose_goals":
            return Reply(calls=[call("propose_goals", goals=[])])
        if first and asked == "submit_plan":
            steps: list[dict[str, Any]] = [
                {"description": "look", "tool": DENIED, "arguments": {}},
                {"description": "beam the refund", "tool": "teleport", "arguments": {}},
            ]
            return Reply(calls=[call("submit_plan", steps=steps)])
        return self.oracle.reply(request)


async def test_bad_answers_are_counted_refused_and_the_task_still_ends(tmp_path: Path) -> None:
    model = ObservedModel(FunctionModel(Garbage().reply))
    run = await run_local_task(TASK, model, tmp_path, deadline_s=30.0)
    assert run.error is None, run.error
    assert (run.goal_tree, run.goal_tree_attempts) == ("after_retries", 2)
    assert run.plan_tools[0] == [DENIED, "teleport"]
    assert (run.plans_naming_unknown_tools, run.plans_naming_denied_tools) == (1, 1)
    assert run.plans_accepted_with_unknown_or_denied_tools == 0
    assert run.steps_with_unknown_or_denied_tools == 0
    assert (run.category, run.reached_expected_end_state) == ("done", True)
    assert (run.external_writes, run.approvals_given, run.unapproved_external_writes) == (1, 1, 0)
    assert run.step_approvals_asked == 1
    assert run.steps == len(TASK.steps)
    assert not run.deadline_hit
    assert not run.overrun


async def test_a_model_that_never_answers_is_cancelled_at_the_deadline(tmp_path: Path) -> None:
    async def hang(request: ModelRequest) -> str:
        await asyncio.sleep(60)
        return "never"

    model = ObservedModel(FunctionModel(hang))
    run = await run_local_task(TASK, model, tmp_path, deadline_s=0.5)
    assert run.deadline_hit
    assert run.error is None, run.error
    assert run.goal_tree == "never"
    assert run.category in ("failed", "stopped")
    assert run.wall_s < 10


def test_the_tools_a_plan_names_are_read_from_a_call_or_from_text() -> None:
    assert named_tools({"steps": [{"tool": "a"}, {"instruction": "b"}, "c"]}) == ["a"]
    assert named_tools('Here: {"steps": [{"tool": "get_order"}]} done') == ["get_order"]
    assert named_tools("no plan") == named_tools("{oops}") == named_tools({"steps": 3}) == []
    assert refusable(["a", "x", "d"], {"a", "d"}, lambda n: n == "d") == (["x"], ["d"])
