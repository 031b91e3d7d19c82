"""The solving loop end to end, on a real store: goals, plans, checkpoints, approvals,
waiting for people and resuming, bounds, and failed reviews that adjust the plan."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.solve.oracle import Oracle, goal, tool_step
from tiller import builtin_tools, tool
from tiller.events import ApprovalDecided, Event, SolveStart
from tiller.messages import Usage
from tiller.solve.bounds import ResourceBounds
from tiller.solve.checkpoints import Checkpoint
from tiller.solve.solver import SolveOptions, Solver
from tiller.store import SolveBusyError, Store
from tiller.testing import Reply, ScriptedModel
from tiller.tools.effects import ToolEffect

outbox: list[str] = []


@tool(effect=ToolEffect.EXTERNAL)
def notify(to: str, text: str) -> str:
    """Send a message to a person."""
    outbox.append(f"{to}: {text}")
    return f"sent to {to}"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    outbox.clear()
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def solver(
    store: Store, workspace: Path, oracle: Oracle, **options: Any
) -> tuple[Solver, list[Event]]:
    tools = [*builtin_tools(["read_file", "write_file"], workspace), notify]
    events: list[Event] = []
    made = Solver(oracle.model, store=store, tools=tools, options=SolveOptions(**options))
    made.subscribe(events.append)
    return made, events


async def pending_approvals(store: Store) -> list[Any]:
    for _ in range(500):
        pending = await store.approvals.list(status="pending")
        if pending:
            return pending
        await asyncio.sleep(0.02)
    raise AssertionError("no approval was requested")


REPORT = goal(
    "report", "Write the report", path="report.md", text="Total: 42", kind="file_contains"
)
TELL = goal("tell", "Tell Ann", "report")


def report_plan() -> dict[str, Any]:
    return {"steps": [tool_step("write_file", path="report.md", content="Total: 42\n")]}


async def test_a_solve_runs_every_goal_to_done_with_its_evidence(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle(
        [REPORT, TELL],
        {
            "Write the report": [report_plan()],
            "Tell Ann": [{"steps": [tool_step("notify", to="ann", text="report ready")]}],
        },
    )
    made, events = solver(store, workspace, oracle)
    task = asyncio.create_task(made.solve("Write the quarterly report and tell Ann"))
    (asked,) = await pending_approvals(store)  # telling Ann acts outside: a person approves
    assert asked.kind == "step"
    assert asked.context["reasons"] == ["it acts outside this machine"]
    assert asked.context["step"]["tool"] == "notify"
    assert outbox == []
    await store.approvals.decide(asked.id, True, "fine", None, "tester")
    final = await asyncio.wait_for(task, 10)
    assert final.status == "done"
    assert (workspace / "report.md").read_text() == "Total: 42\n"
    assert outbox == ["ann: report ready"]
    report = next(g for g in final.goals if g["id"] == "report")
    assert report["status"] == "done"
    assert report["evidence"][0]["judged_by"] == "check"
    assert "Total: 42" in report["evidence"][0]["evidence"]
    kinds = [
        e.type
        for e in events
        if e.type in {"goal_selected", "plan_created", "step_started", "step_finished", "solve_end"}
    ]
    assert kinds[:4] == ["goal_selected", "plan_created", "step_started", "step_finished"]
    assert kinds[-1] == "solve_end"
    saved = await store.solves.load(final.solve_id)
    assert saved.status == "done"
    assert "# Solve" in final.to_markdown()


async def test_a_checkpoint_waits_for_a_decision_made_elsewhere(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle([REPORT], {"Write the report": [report_plan()]})
    checkpoint = Checkpoint(event="before_step", mode="require_approval", timeout=30)
    made, events = solver(store, workspace, oracle, checkpoints=[checkpoint])
    task = asyncio.create_task(made.solve("Write the report"))
    pending = await pending_approvals(store)
    assert len(pending) == 1
    assert pending[0].event == "before_step"
    assert not (workspace / "report.md").exists()  # nothing ran before the decision
    await store.approvals.decide(pending[0].id, True, "go ahead", None, "tester")
    final = await asyncio.wait_for(task, 10)
    assert final.status == "done"
    decided = [e for e in events if isinstance(e, ApprovalDecided)]
    assert [e.decision for e in decided] == ["approved"]


async def test_a_rejected_checkpoint_stops_the_solve(store: Store, workspace: Path) -> None:
    oracle = Oracle([REPORT], {"Write the report": [report_plan()]})
    checkpoint = Checkpoint(event="plan_created", mode="require_approval", timeout=30)
    made, _ = solver(store, workspace, oracle, checkpoints=[checkpoint])
    task = asyncio.create_task(made.solve("Write the report"))
    pending = await pending_approvals(store)
    await store.approvals.decide(pending[0].id, False, "not this plan", None, "tester")
    final = await asyncio.wait_for(task, 10)
    assert final.status == "waiting"
    assert final.stop_reason == "checkpoint_halt_on_plan_created"
    assert not (workspace / "report.md").exists()


async def test_questions_wait_for_answers_and_the_solve_resumes_with_them(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle(
        [REPORT],
        {"Write the report": [{"steps": [], "questions": ["Which quarter?"]}, report_plan()]},
    )
    made, _ = solver(store, workspace, oracle)
    first = await made.solve("Write the report")
    assert first.status == "waiting"
    (follow_up,) = first.follow_ups
    assert follow_up["data"] == {"questions": ["Which quarter?"]}
    await store.approvals.decide(follow_up["approval_id"], True, "Q3", None, "tester")
    again = await made.resume(first.solve_id)
    assert again.status == "done"
    assert (workspace / "report.md").exists()
    assert "Q3" in oracle.model.requests[-1].messages[0].text or any(
        "Q3" in r.messages[0].text for r in oracle.model.requests
    )


async def test_a_failed_review_adjusts_the_plan_once(store: Store, workspace: Path) -> None:
    wrong = {"steps": [tool_step("write_file", path="report.md", content="Total: 41\n")]}
    oracle = Oracle([REPORT], {"Write the report": [wrong, report_plan()]})
    made, _ = solver(store, workspace, oracle)
    final = await made.solve("Write the report")
    assert final.status == "done"
    assert oracle.asked.count("plan Write the report") == 2
    saved = await store.solves.load(final.solve_id)
    assert saved.state is not None
    assert saved.state["plans"]["report"]["version"] == 2
    notes = await store.learning.latest("default", "root_cause", n=5)
    assert any("not met" in str(n.payload) and "Total: 41" in str(n.payload) for n in notes)


async def test_a_spent_bound_escalates_and_stops(store: Store, workspace: Path) -> None:
    oracle = Oracle(
        [REPORT, TELL],
        {
            "Write the report": [report_plan()],
            "Tell Ann": [{"steps": [tool_step("notify", to="ann", text="x")]}],
        },
    )
    made, events = solver(store, workspace, oracle, bounds=ResourceBounds(max_iterations=1))
    final = await asyncio.wait_for(made.solve("Report, then tell Ann"), 10)
    assert final.status == "stopped"
    assert final.stop_reason == "max_iterations_reached"
    assert [e.type for e in events if e.type == "escalation"] == ["escalation"]
    assert outbox == []


async def test_one_process_at_a_time_resumes_a_solve(store: Store, workspace: Path) -> None:
    oracle = Oracle([REPORT], {"Write the report": [{"steps": [], "questions": ["Which?"]}]})
    made, _ = solver(store, workspace, oracle)
    first = await made.solve("Write the report")
    async with store.leases.hold(first.solve_id, "someone-else"):
        with pytest.raises(SolveBusyError):
            await made.resume(first.solve_id)


async def test_each_goal_leaves_an_episodic_trace_and_an_example(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle([REPORT], {"Write the report": [report_plan()]})
    made, _ = solver(store, workspace, oracle)
    final = await made.solve("Write the report")
    assert final.status == "done"
    (episode,) = await store.learning.latest("default", "episode", n=5)
    assert episode.payload == {
        "steps": [{"step": "report/v1/r1/s1", "tool": "write_file", "ok": True}]
    }
    (example,) = await store.learning.latest("default", "example", n=5)
    assert example.payload["goal"] == "Write the report"
    assert final.telemetry["tools"]["write_file"]["calls"] == 1


async def test_a_solve_announces_its_id_first_and_keeps_its_settings(
    store: Store, workspace: Path
) -> None:
    oracle = Oracle(
        [REPORT],
        {"Write the report": [{"steps": [], "questions": ["Which quarter?"]}, report_plan()]},
    )
    made, events = solver(store, workspace, oracle)
    settings = {"model": "local:smollm2", "tools": ["read_file"]}
    first = await made.solve("Write the report", settings=settings)
    start = events[0]
    assert isinstance(start, SolveStart)
    assert (start.solve_id, start.resumed) == (first.solve_id, False)
    assert start.objectives == ["Write the report"]
    assert (await store.solves.load(first.solve_id)).options["settings"] == settings
    (question,) = await store.approvals.list(status="pending")
    await store.approvals.decide(question.id, True, "Q3", None, "bo")
    events.clear()
    await made.resume(first.solve_id)
    resumed = events[0]
    assert isinstance(resumed, SolveStart)
    assert (resumed.solve_id, resumed.resumed) == (first.solve_id, True)


async def test_what_failed_answers_spent_counts_in_the_solves_usage(store: Store) -> None:
    spent = Usage(input_tokens=40, output_tokens=2)
    made = Solver(ScriptedModel([Reply("hmm", usage=spent)] * 3), store=store)
    final = await made.solve("Write the report")
    assert final.status == "failed"
    assert final.stop_reason == "no_goal_tree"
    assert final.usage["input_tokens"] == 120
