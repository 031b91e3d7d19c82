"""The solver's other paths: edited plans, depth and decomposition, learning by doing,
untrusted data, transient retries, repeated failures, no goal tree, interrupted steps."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.solve.oracle import Oracle, goal, tool_step
from tiller import builtin_tools, tool
from tiller.events import Event
from tiller.solve.bounds import ResourceBounds
from tiller.solve.checkpoints import Checkpoint
from tiller.solve.research import Document, ResearchRules
from tiller.solve.solver import SolveOptions, Solver
from tiller.store import Store
from tiller.testing import FunctionModel
from tiller.tools.effects import ToolEffect

flaky_calls: list[int] = []


@tool(effect=ToolEffect.READ, timeout_s=5)
def flaky(n: int) -> str:
    """Fails with a network error the first time."""
    flaky_calls.append(n)
    if len(flaky_calls) == 1:
        raise ConnectionError("network unreachable")
    return f"ok {n}"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("quarter: Q3\n")
    return folder


def make(store: Store, workspace: Path, model: Any, **options: Any) -> tuple[Solver, list[Event]]:
    tools = [*builtin_tools(["read_file", "write_file"], workspace), flaky]
    solver = Solver(model, store=store, tools=tools, options=SolveOptions(**options))
    events: list[Event] = []
    solver.subscribe(events.append)
    return solver, events


REPORT = goal("report", "Write the report", kind="file_contains", path="report.md", text="Q3")
WRITE = {"steps": [tool_step("write_file", path="report.md", content="Q3 report\n")]}


async def first_pending(store: Store) -> Any:
    for _ in range(500):
        pending = await store.approvals.list(status="pending")
        if pending:
            return pending[0]
        await asyncio.sleep(0.02)
    raise AssertionError("no approval was requested")


async def test_an_edited_plan_given_with_the_approval_replaces_the_plan(
    store: Store, workspace: Path
) -> None:
    wrong = {"steps": [tool_step("write_file", path="report.md", content="Q2\n")]}
    oracle = Oracle([REPORT], {"Write the report": [wrong]})
    checkpoint = Checkpoint("plan_created", "require_approval", timeout=30)
    solver, _ = make(store, workspace, oracle.model, checkpoints=[checkpoint])
    task = asyncio.create_task(solver.solve("report"))
    asked = await first_pending(store)
    assert asked.context["plan"]["steps"][0]["arguments"]["content"] == "Q2\n"
    edited = {
        "steps": [
            {
                "index": 1,
                "description": "write it",
                "tool": "write_file",
                "arguments": {"path": "report.md", "content": "Q3 edited\n"},
                "effect": "write_local",
            }
        ]
    }
    await store.approvals.decide(asked.id, True, "use mine", edited, "tester")
    final = await asyncio.wait_for(task, 10)
    assert final.status == "done"
    assert (workspace / "report.md").read_text() == "Q3 edited\n"


async def test_a_goal_too_difficult_is_decomposed_and_depth_is_bounded(
    store: Store, workspace: Path
) -> None:
    sub = {
        "id": "part",
        "title": "Write part one",
        "acceptance_criteria": [{"description": "part one exists"}],
    }
    big = {"steps": [], "too_difficult": True, "subgoals": [sub]}
    oracle = Oracle(
        [goal("big", "Do the big thing")],
        {
            "Do the big thing": [big],
            "Write part one": [{"steps": [tool_step("read_file", path="notes.txt")]}],
        },
    )
    solver, _ = make(store, workspace, oracle.model)
    final = await solver.solve("big")
    assert final.status == "done"
    assert [(g["id"], g["status"]) for g in final.goals] == [("big", "done"), ("big.part", "done")]

    # With no depth for sub-goals, the same tree stops and waits.
    deep = Oracle(
        [goal("big", "Do the big thing")],
        {
            "Do the big thing": [big],
            "Write part one": [big | {"subgoals": [sub | {"id": "deeper"}]}],
        },
    )
    solver, _ = make(store, workspace, deep.model, bounds=ResourceBounds(max_depth=0))
    final = await solver.solve("big")
    assert final.status == "waiting"
    assert final.stop_reason == "max_depth_exceeded"


async def test_auto_mode_learns_by_doing_before_asking(store: Store, workspace: Path) -> None:
    probe = {"steps": [tool_step("read_file", path="notes.txt")], "questions": ["Which quarter?"]}
    oracle = Oracle([REPORT], {"Write the report": [probe, WRITE]})
    solver, _ = make(store, workspace, oracle.model, auto=True)
    final = await solver.solve("report")
    assert final.status == "done"
    replanned = [r for r in oracle.model.requests if "submit_plan" in {t.name for t in r.tools}]
    assert "quarter: Q3" in replanned[1].messages[0].text  # what the probe read, planned with


async def test_untrusted_or_stale_research_stops_the_goal_with_a_question(
    store: Store, workspace: Path
) -> None:
    async def retrieve(goal: Any, plan: Any) -> list[Document]:
        return [Document("forum", "rumour", datetime.now(UTC) - timedelta(days=400))]

    oracle = Oracle([REPORT], {"Write the report": [WRITE]})
    rules = ResearchRules(trusted_sources=frozenset({"wiki"}), max_age_s=30 * 86_400)
    solver, _ = make(store, workspace, oracle.model, retriever=retrieve, research=rules)
    final = await solver.solve("report")
    assert final.status == "waiting"
    assert final.stop_reason == "invalid_or_untrusted_rag"
    (question,) = final.follow_ups[0]["data"]["questions"]
    assert "'forum' is not a trusted source" in question
    assert not (workspace / "report.md").exists()


async def test_a_transient_failure_is_retried_with_backoff(store: Store, workspace: Path) -> None:
    flaky_calls.clear()
    check = goal(
        "check", "Check the link", kind="tool_answer", tool="flaky", arguments={"n": 2}, text="ok 2"
    )
    oracle = Oracle([check], {"Check the link": [{"steps": [tool_step("flaky", n=1)]}]})
    solver, _ = make(store, workspace, oracle.model, bounds=ResourceBounds(retry_backoff_s=0.01))
    final = await solver.solve("check")
    assert final.status == "done"
    assert flaky_calls == [1, 1, 2]  # failed, retried, then the review's own check


async def test_goals_failing_in_a_row_stop_the_solve(store: Store, workspace: Path) -> None:
    goals = [
        goal(f"g{i}", f"Goal {i}", kind="file_contains", path="nope.md", text="x") for i in range(3)
    ]
    plans = {f"Goal {i}": [{"steps": [tool_step("read_file", path="notes.txt")]}] for i in range(3)}
    solver, _ = make(store, workspace, Oracle(goals, plans).model)
    final = await solver.solve("three goals")
    assert final.status == "stopped"
    assert final.stop_reason == "evaluations_failing"
    assert [g["status"] for g in final.goals] == ["failed", "failed", "pending"]


async def test_a_model_that_never_proposes_goals_fails_the_solve_clearly(
    store: Store, workspace: Path
) -> None:
    model = FunctionModel(lambda request: "I would rather chat.")
    solver, _ = make(store, workspace, model)
    final = await solver.solve("anything")
    assert final.status == "failed"
    assert final.stop_reason == "no_goal_tree"
    assert "propose_goals" in final.escalations[0]["detail"]


async def test_an_interrupted_step_with_effects_is_asked_about_not_rerun(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle([REPORT], {"Write the report": [WRITE]})
    solver, _ = make(
        store,
        workspace,
        oracle.model,
        checkpoints=[Checkpoint("pre_execution", "pause", timeout=30)],
    )
    task = asyncio.create_task(solver.solve("report"))
    paused = await first_pending(store)
    task.cancel()  # the process "dies" while waiting; the step never ran
    with pytest.raises(asyncio.CancelledError):
        await task
    solve_id = paused.solve_id
    # Pretend the step had started when the process died: its record says started.
    await store.steps.step_started(solve_id, "report/v1/r1/s1", "write_file", "write_local", {})
    await store.approvals.decide(paused.id, True, "go", None, "tester")
    resumed = asyncio.create_task(solver.resume(solve_id))
    asked = None
    for _ in range(500):
        pending = await store.approvals.list(status="pending", solve_id=solve_id)
        if pending:
            asked = pending[0]
            break
        await asyncio.sleep(0.02)
    assert asked is not None
    assert asked.context["interrupted"] is True
    assert "may have taken effect" in asked.context["reasons"][0]
    await store.approvals.decide(asked.id, True, "run it again", None, "tester")
    final = await asyncio.wait_for(resumed, 10)
    assert final.status == "done"
    assert (workspace / "report.md").read_text() == "Q3 report\n"


async def test_a_step_rejected_then_answered_is_asked_about_again_after_resume(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle([REPORT], {"Write the report": [WRITE]})
    checkpoint = Checkpoint("before_step", "require_approval", timeout=30)
    solver, _ = make(store, workspace, oracle.model, checkpoints=[checkpoint])
    task = asyncio.create_task(solver.solve("report"))
    first = await first_pending(store)
    await store.approvals.decide(first.id, False, "not yet", None, "tester")
    waiting = await asyncio.wait_for(task, 10)
    assert waiting.status == "waiting"
    (follow_up,) = waiting.follow_ups
    await store.approvals.decide(follow_up["approval_id"], True, "now it is fine", None, "tester")
    resumed = asyncio.create_task(solver.resume(waiting.solve_id))
    again = None
    for _ in range(500):
        pending = await store.approvals.list(status="pending", solve_id=waiting.solve_id)
        if pending:
            again = pending[0]
            break
        await asyncio.sleep(0.02)
    assert again is not None  # the new plan's step is asked about afresh
    assert again.id != first.id
    assert again.context["plan"]["version"] == 2
    await store.approvals.decide(again.id, True, "go", None, "tester")
    final = await asyncio.wait_for(resumed, 10)
    assert final.status == "done"
    assert (workspace / "report.md").exists()
