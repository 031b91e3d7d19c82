"""Carrying out a plan: checkpoints, permissions, dry-run risks, approvals, bounds, rollback."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tiller import CancelToken, RollbackJournal, ToolPolicy, builtin_tools, tool
from tiller.events import Event, PlanSummary, StepFinished, StepStarted
from tiller.loop.options import Governance
from tiller.solve.bounds import ResourceBounds, SolveUsage
from tiller.solve.execution import StepRules, Workbench, execute_plan, verification_reasons
from tiller.solve.framework import Mode
from tiller.solve.gate import Decision, NoRecord, OpenGate
from tiller.solve.goals import Goal
from tiller.solve.plans import Plan, Step, StepStatus
from tiller.solve.results import Status
from tiller.testing import Reply, ScriptedModel, call
from tiller.tools.effects import ToolEffect

sent: list[str] = []


@tool(effect=ToolEffect.EXTERNAL)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"sent to {to}"


@tool(effect=ToolEffect.READ)
def lookup(key: str) -> str:
    """Look a key up."""
    if key == "boom":
        raise RuntimeError("lookup failed")
    return f"value of {key}"


class Gatekeeper:
    """A gate that records what it was asked and answers from a script."""

    def __init__(self, checkpoints: Mapping[str, Decision] | None = None, approve: bool = True):
        self.checkpoints = dict(checkpoints or {})
        self.approve = approve
        self.events: list[str] = []
        self.approvals: list[list[str]] = []

    async def checkpoint(self, event: str, context: Mapping[str, Any]) -> Decision:
        self.events.append(event)
        return self.checkpoints.get(event, Decision.CONTINUE)

    async def approval(self, reasons: list[str], context: Mapping[str, Any]) -> Decision:
        self.approvals.append(reasons)
        return Decision.APPROVED if self.approve else Decision.REJECTED


class Record:
    def __init__(self) -> None:
        self.lines: list[str] = []

    async def started(
        self, key: str, tool: str | None, effect: str | None, arguments: dict[str, Any] | None
    ) -> None:
        self.lines.append(f"started {key} {tool}")

    async def finished(self, key: str, outcome: dict[str, Any]) -> None:
        self.lines.append(f"finished {key} ok={outcome['ok']}")


def bench(
    tools: list[Any],
    *,
    gate: Any = None,
    record: Any = None,
    mode: Mode = Mode.DIRECT_TOOLS,
    governance: Governance | None = None,
    bounds: ResourceBounds | None = None,
    usage: SolveUsage | None = None,
    model: Any = None,
    rules: StepRules | None = None,
) -> tuple[Workbench, list[Event]]:
    events: list[Event] = []
    return (
        Workbench(
            solve_id="s1",
            model=model or ScriptedModel([]),
            tools=tools,
            mode=mode,
            governance=governance or Governance(),
            bounds=bounds or ResourceBounds(summary_every_n=2),
            usage=usage or SolveUsage(),
            gate=gate or OpenGate(),
            record=record or NoRecord(),
            emit=events.append,
            cancel=CancelToken(),
            loop_id="solve-s1",
            rules=rules or StepRules(),
        ),
        events,
    )


def steps(*specs: tuple[str, dict[str, Any]], effect: str = "read") -> Plan:
    return Plan(
        "g",
        [
            Step(i, f"step {i}", tool=name, arguments=args, effect=effect)
            for i, (name, args) in enumerate(specs, start=1)
        ],
    )


GOAL = Goal("g", "Goal")


async def test_steps_run_in_order_with_their_checkpoints_record_and_events() -> None:
    gate, record = Gatekeeper(), Record()
    workbench, events = bench([lookup], gate=gate, record=record)
    plan = steps(("lookup", {"key": "a"}), ("lookup", {"key": "b"}))
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert result.data == {"1": "value of a", "2": "value of b"}
    assert gate.events == [
        "before_step",
        "after_step",
        "before_step",
        "after_step",
        "post_execution",
    ]
    assert record.lines == [
        "started g/v1/r1/s1 lookup",
        "finished g/v1/r1/s1 ok=True",
        "started g/v1/r1/s2 lookup",
        "finished g/v1/r1/s2 ok=True",
    ]
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["StepStarted", "StepFinished", "StepStarted", "StepFinished", "PlanSummary"]
    assert workbench.usage.steps == 2
    assert all(s.status is StepStatus.DONE for s in plan.steps)


async def test_a_step_that_already_ran_is_not_run_again() -> None:
    workbench, events = bench([lookup])
    plan = steps(("lookup", {"key": "a"}), ("lookup", {"key": "b"}))
    plan.steps[0].status = StepStatus.DONE
    plan.steps[0].output = "value of a"
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert [e.step_index for e in events if isinstance(e, StepStarted)] == [2]


@pytest.mark.parametrize("event", ["before_step", "after_step", "post_execution"])
async def test_a_rejected_or_timed_out_checkpoint_halts_the_plan(event: str) -> None:
    for decision in (Decision.REJECTED, Decision.TIMEOUT):
        workbench, _ = bench([lookup], gate=Gatekeeper({event: decision}))
        result = await execute_plan(steps(("lookup", {"key": "a"})), GOAL, workbench)
        assert result.status is Status.FAILURE
        assert result.error == f"checkpoint_halt_{event}"


async def test_a_missing_or_denied_tool_is_permission_denied() -> None:
    workbench, _ = bench([lookup])
    result = await execute_plan(steps(("rm", {})), GOAL, workbench)
    assert (result.error, result.meta["step"]) == ("permission_denied", 1)
    denied = Governance(tool_policy=ToolPolicy("ro", deny={"lookup"}))
    workbench, events = bench([lookup], governance=denied)
    result = await execute_plan(steps(("lookup", {"key": "a"})), GOAL, workbench)
    assert result.error == "permission_denied"
    assert "deny list" in result.meta["reason"]
    assert events == []  # nothing ran


async def test_external_steps_need_approval_and_a_refusal_halts(tmp_path: Path) -> None:
    sent.clear()
    gate = Gatekeeper(approve=False)
    workbench, _ = bench([send_email], gate=gate)
    plan = steps(("send_email", {"to": "ann", "body": "hi"}), effect="external")
    result = await execute_plan(plan, GOAL, workbench)
    assert result.error == "approval_not_granted"
    assert gate.approvals == [["it acts outside this machine"]]
    assert sent == []
    gate.approve = True
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert sent == ["ann"]


def test_every_reason_for_a_person_is_named() -> None:
    workbench, _ = bench(
        [lookup],
        rules=StepRules(approval_required=frozenset({"lookup"})),
        bounds=ResourceBounds(max_cost_usd=1.0),
        usage=SolveUsage(cost_usd=0.85),
    )
    step = Step(1, "s", tool="lookup", arguments={"key": "<customer id>"}, confidence=0.2)
    assert verification_reasons(step, workbench) == [
        "every call of 'lookup' needs approval",
        "its requirement is ambiguous: no value for key",
        "most of the cost budget is spent (0.85 of 1)",
        "it was planned with low confidence (0.20)",
    ]


async def test_a_risky_dry_run_runs_only_when_a_person_approves_it(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep\n")
    gate = Gatekeeper(approve=False)
    workbench, _ = bench(builtin_tools(["write_file"], tmp_path), gate=gate)
    big = "\n".join(f"line {i}" for i in range(500))
    plan = steps(("write_file", {"path": "notes.txt", "content": big}), effect="write_local")
    result = await execute_plan(plan, GOAL, workbench)
    assert result.error == "dry_run_risk_detected"
    assert result.meta["risks"] == ["it changes 500 lines (more than 200)"]
    assert gate.approvals == [["it changes 500 lines (more than 200)"]]
    assert (tmp_path / "notes.txt").read_text() == "keep\n"
    gate.approve = True  # the person saw the risk and the dry run, and approved
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert (tmp_path / "notes.txt").read_text() == big


async def test_a_failed_step_is_rolled_back_and_reported(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    journal = RollbackJournal()
    tools = [*builtin_tools(["write_file"], tmp_path), lookup]
    workbench, events = bench(tools, governance=Governance(rollbacks=journal))
    plan = Plan(
        "g",
        [
            Step(1, "write", tool="write_file", arguments={"path": "a.txt", "content": "new\n"}),
            Step(2, "look", tool="lookup", arguments={"key": "boom"}),
        ],
    )
    result = await execute_plan(plan, GOAL, workbench)
    assert result.error == "step_failed"
    assert "lookup failed" in result.meta["reason"]
    assert plan.steps[1].status is StepStatus.FAILED
    # The failed step's own undo ran; the first step's write stands.
    assert (tmp_path / "a.txt").read_text() == "new\n"
    finished = [e for e in events if isinstance(e, StepFinished)]
    assert [e.status for e in finished] == ["done", "failed"]


async def test_a_spent_bound_stops_before_the_next_step() -> None:
    workbench, _ = bench([lookup], bounds=ResourceBounds(max_steps=1))
    plan = steps(("lookup", {"key": "a"}), ("lookup", {"key": "b"}))
    result = await execute_plan(plan, GOAL, workbench)
    assert result.error == "stop_conditions_triggered"
    assert result.meta == {"step": 2, "escalation": "max_steps_reached"}


async def test_the_same_call_giving_the_same_answer_again_is_looping() -> None:
    workbench, _ = bench([lookup])
    plan = steps(*[("lookup", {"key": "a"})] * 4)
    result = await execute_plan(plan, GOAL, workbench)
    assert result.error == "looping"
    assert result.meta["step"] == 3


async def test_an_instruction_runs_as_a_guarded_agent_whose_external_calls_need_approval() -> None:
    sent.clear()
    model = ScriptedModel(
        [Reply(calls=[call("send_email", to="bob", body="hello")]), "I emailed Bob."]
    )
    gate = Gatekeeper(approve=False)
    workbench, events = bench([send_email], gate=gate, model=model, mode=Mode.GUARDED_AGENT)
    plan = Plan("g", [Step(1, "tell Bob", instruction="Email Bob that the order shipped.")])
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert result.data == {"1": "I emailed Bob."}
    assert sent == []  # the agent's external call waited for approval, which was refused
    assert gate.approvals == [["it acts outside this machine"]]
    assert any(getattr(e, "parent_loop_id", None) == "solve-s1" for e in events)
    assert not any(isinstance(e, PlanSummary) for e in events[:1])


async def test_a_team_step_hands_the_work_to_a_worker() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[call("worker", task="Look up the key a.")]),
            Reply(calls=[call("lookup", key="a")]),
            "It is value of a.",
            "The worker found: value of a.",
        ]
    )
    workbench, _ = bench([lookup], model=model, mode=Mode.TEAM)
    plan = Plan("g", [Step(1, "find a", instruction="Find the value of a.")])
    result = await execute_plan(plan, GOAL, workbench)
    assert result.status is Status.SUCCESS
    assert result.data == {"1": "The worker found: value of a."}
    assert [t.name for t in model.requests[0].tools] == ["worker"]
    assert [t.name for t in model.requests[1].tools] == ["lookup"]
