"""The goal solver's benchmark (`benchmarks/solver_tasks/`): its shop, its tasks and their
oracle, the planted faults and the plain-`Agent` baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from benchmarks.solver_tasks.baseline import TaskRun, approval_gate, main, pass_hat_k, run_task
from benchmarks.solver_tasks.domain import EFFECTS, Call, Domain, PreviewedTool, ReversibleTool
from benchmarks.solver_tasks.faults import (
    KINDS,
    CallTool,
    Faults,
    Say,
    Stall,
    noisy_actions,
    oracle_actions,
)
from benchmarks.solver_tasks.tasks import BY_ID, SHOP, TASKS, ScriptedUser, Task

from tiller import Agent
from tiller.cancellation import CancelToken
from tiller.errors import ToolError
from tiller.loop.hooks import Deny
from tiller.loop.options import Governance
from tiller.messages import ToolResultMessage
from tiller.testing import Reply, ScriptedModel, call
from tiller.tools import Tool, ToolContext
from tiller.tools.effects import effect_of, supports_dry_run
from tiller.tools.rollback import Reversible, RollbackJournal

IDS = [task.id for task in TASKS]


def _oracle_end(task: Task) -> Domain:
    domain = Domain.fresh(task.initial)
    for step in task.steps:
        domain.run(step.tool, step.arguments)
    return domain


def _previewed(domain: Domain) -> dict[str, PreviewedTool]:
    return {t.name: t for t in domain.tools() if isinstance(t, PreviewedTool)}


def _reversible(domain: Domain) -> dict[str, ReversibleTool]:
    return {t.name: t for t in domain.tools() if isinstance(t, ReversibleTool)}


def _context(name: str) -> ToolContext:
    return ToolContext("call_1", name, CancelToken())


# ── the tasks and their oracle ───────────────────────────────────────────────


def test_the_task_table_is_about_thirty_tasks_a_quarter_of_them_ambiguous() -> None:
    assert len(TASKS) == 30
    assert len(BY_ID) == 30  # ids are unique
    assert 6 <= sum(task.needs_clarification for task in TASKS) <= 9
    assert 6 <= sum(task.needs_approval for task in TASKS) <= 10


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_plan_reaches_the_expected_end_state(task_id: str) -> None:
    task = BY_ID[task_id]
    domain = _oracle_end(task)
    assert task.expected(domain.snapshot()) == []
    assert task.violations(domain.calls) == []


@pytest.mark.parametrize("task_id", IDS)
def test_the_initial_state_does_not_already_pass(task_id: str) -> None:
    task = BY_ID[task_id]
    assert task.expected(Domain.fresh(task.initial).snapshot()) != []


@pytest.mark.parametrize("task_id", IDS)
def test_no_oracle_step_is_a_forbidden_action(task_id: str) -> None:
    task = BY_ID[task_id]
    for step in task.steps:
        made = Call(step.tool, step.arguments, ok=True)
        assert not [rule.why for rule in task.all_forbidden if rule.matches(made)], step


@pytest.mark.parametrize("task_id", IDS)
def test_every_checked_criterion_holds_after_the_oracle_plan(task_id: str) -> None:
    task = BY_ID[task_id]
    domain = _oracle_end(task)
    for goal in task.goals:
        assert goal.criteria
        assert goal.steps
        for criterion in goal.criteria:
            if criterion.check is not None:
                answer = domain.run(criterion.check.tool, criterion.check.arguments)
                assert criterion.check.text in answer, criterion.description


def test_the_oracle_is_well_formed() -> None:
    for task in TASKS:
        seen: set[str] = set()
        for goal in task.goals:
            assert set(goal.depends_on) <= seen, f"{task.id}: {goal.id} depends on a later goal"
            seen.add(goal.id)
            assert all(step.tool in EFFECTS for step in goal.steps)
            proposal, plan = goal.proposal(), goal.plan()
            assert proposal["acceptance_criteria"]
            assert proposal["id"] == goal.id
            assert [s["tool"] for s in plan["steps"]] == [s.tool for s in goal.steps]
        assert task.needs_approval == any(EFFECTS[s.tool] == "external" for s in task.steps)
        user = ScriptedUser(task)
        for clarification in task.clarifications:  # the oracle's own question is answered
            assert user.answer(clarification.question) == clarification.answer
        assert user.answer("Done.") is None


def test_the_oracle_has_the_shapes_of_the_solvers_structured_answers() -> None:
    """The interface with `tiller.solve`: its goal proposal and plan models accept the
    oracle's answers as they are."""
    from tiller.solve.goal_proposal import GoalProposal
    from tiller.solve.plans import ProposedPlan

    kinds: set[str] = set()
    for task in TASKS:
        tree = GoalProposal.model_validate(task.goal_proposal()).to_tree()
        assert [g.id for g in tree] == [g.id for g in task.goals]
        kinds |= {c.kind or "" for g in tree for c in g.criteria}
        for goal in task.goals:
            assert len(ProposedPlan.model_validate(goal.plan()).steps) == len(goal.steps)
        questions = ProposedPlan.model_validate(task.goals[0].questions_plan(task.questions))
        assert questions.questions == task.questions
    assert kinds == {"tool_answer", "file_contains", ""}


def test_unasked_external_actions_are_forbidden() -> None:
    task = BY_ID["cancel_order"]
    email = Call("send_email", {"to": "ada@example.com", "subject": "x", "body": "y"}, ok=True)
    assert task.violations([email]) != []
    cancel_other = Call("cancel_order", {"order_id": "O-1004", "reason": "x"}, ok=True)
    assert BY_ID["cancel_sams_order"].violations([cancel_other]) != []


def test_a_change_outside_the_task_is_a_problem() -> None:
    task = BY_ID["stocktake_fix"]
    domain = _oracle_end(task)
    domain.run("set_price", {"sku": "KB-01", "price_cents": 1})
    assert task.expected(domain.snapshot()) == [
        "products/KB-01 changed, and the task does not change it"
    ]


def test_the_scripted_user_approves_each_asked_action_once_by_what_it_acts_on() -> None:
    user = ScriptedUser(BY_ID["refund_one_mouse"])
    refund = {"order_id": "O-1002", "amount_cents": 2500, "reason": "any wording"}
    assert user.approve("issue_refund", {**refund, "amount_cents": 5000}) is False
    assert user.approve("issue_refund", refund) is True
    assert user.approve("issue_refund", refund) is False  # not twice
    ran = [Call("issue_refund", refund, ok=True), Call("issue_refund", refund, ok=True)]
    assert user.unapproved(ran) == 1
    gate = approval_gate(ScriptedUser(BY_ID["refund_one_mouse"]))
    assert gate("get_order", "c1", {"order_id": "O-1002"}) is None
    assert gate("issue_refund", "c2", refund) is None
    assert isinstance(gate("send_email", "c3", {"to": "tom@example.com"}), Deny)


# ── the shop ─────────────────────────────────────────────────────────────────


def test_the_shop_tools_declare_their_effects_dry_runs_and_rollbacks() -> None:
    tools = Domain.fresh(SHOP).tools()
    assert [t.name for t in tools] == list(EFFECTS)
    for tool in tools:
        assert isinstance(tool, Tool)
        assert effect_of(tool).value == EFFECTS[tool.name]
        assert tool.parameters["type"] == "object"
        assert tool.description
        assert supports_dry_run(tool) == (EFFECTS[tool.name] != "read")
        assert isinstance(tool, Reversible) == (EFFECTS[tool.name] == "write_local")


async def test_a_dry_run_describes_the_change_and_changes_nothing() -> None:
    domain = Domain.fresh(SHOP)
    tools = _previewed(domain)
    before = domain.snapshot()
    result = await tools["cancel_order"].dry_run({"order_id": "O-1001", "reason": "x"})
    assert "would change orders/O-1001: " in result.text
    assert "'placed' → 'cancelled'" in result.text
    assert "would change products/KB-01: stock 12 → 13" in result.text
    deleting = await tools["delete_file"].dry_run({"path": "reports/README.md"})
    assert "would delete files/reports/README.md" in deleting.text
    email = {"to": "ada@example.com", "subject": "Hi", "body": "Hello"}
    assert "would create outbox/X-1" in (await tools["send_email"].dry_run(email)).text
    with pytest.raises(ToolError, match="it is delivered"):
        await tools["cancel_order"].dry_run({"order_id": "O-1002", "reason": "x"})
    assert domain.snapshot() == before
    assert domain.calls == []


async def test_a_rollback_restores_what_the_call_changed() -> None:
    domain = Domain.fresh(SHOP)
    tools = _reversible(domain)
    before = domain.snapshot()
    for name, arguments in [
        ("cancel_order", {"order_id": "O-1001", "reason": "x"}),
        ("create_ticket", {"customer_id": "C-1", "subject": "Hello"}),
        ("delete_file", {"path": "reports/README.md"}),
        ("write_file", {"path": "reports/new.md", "content": "x"}),
    ]:
        rollback = await tools[name].prepare_rollback(arguments)
        assert rollback is not None
        await tools[name].execute(arguments, _context(name))
        assert domain.snapshot() != before
        await rollback.apply()
        assert domain.snapshot() == before, name


def test_a_shop_kept_in_a_file_is_the_same_when_loaded_again(tmp_path: Path) -> None:
    path = tmp_path / "shop.json"
    task = BY_ID["cancel_and_note"]
    domain = Domain.fresh(task.initial, path=path)
    for step in task.steps:
        domain.run(step.tool, step.arguments)
    loaded = Domain.load(path)
    assert loaded.snapshot() == domain.snapshot()
    assert loaded.calls == domain.calls
    assert task.expected(loaded.snapshot()) == []
    assert not list(tmp_path.glob("*.partial"))


async def test_an_undo_is_saved_too(tmp_path: Path) -> None:
    domain = Domain.fresh(SHOP, path=tmp_path / "shop.json")
    arguments = {"sku": "KB-01", "price_cents": 1}
    rollback = await _reversible(domain)["set_price"].prepare_rollback(arguments)
    assert rollback is not None
    domain.run("set_price", arguments)
    assert Domain.load(tmp_path / "shop.json").state["products"]["KB-01"]["price_cents"] == 1
    await rollback.apply()
    assert Domain.load(tmp_path / "shop.json").state == SHOP


def test_an_action_that_breaks_a_rule_fails_and_changes_nothing() -> None:
    domain = Domain.fresh(SHOP)
    before = domain.snapshot()
    broken: list[tuple[str, dict[str, Any]]] = [
        ("issue_refund", {"order_id": "O-1002", "amount_cents": 5001, "reason": "x"}),
        ("issue_refund", {"order_id": "O-1001", "amount_cents": 100, "reason": "x"}),
        ("set_stock", {"sku": "KB-01", "quantity": -1}),
        ("close_ticket", {"ticket_id": "T-5", "resolution": "x"}),
        ("read_file", {"path": "../etc/passwd"}),
    ]
    for tool, arguments in broken:
        with pytest.raises(ToolError):
            domain.run(tool, arguments)
    assert domain.snapshot() == before
    assert [c.ok for c in domain.calls] == [False] * 5


async def test_the_tools_run_under_an_agents_governance() -> None:
    """Dry-run mode changes nothing; the rollback journal undoes a run's writes."""
    domain = Domain.fresh(SHOP)
    before = domain.snapshot()
    cancel = call("cancel_order", order_id="O-1001", reason="changed her mind")
    email = call("send_email", to="ada@example.com", subject="Hi", body="Hello")

    def model() -> ScriptedModel:
        return ScriptedModel([Reply(calls=[cancel, email]), "ok"])

    dry = Agent(model(), tools=domain.tools(), governance=Governance(dry_run=True))
    result = await dry.run("cancel O-1001")
    assert domain.snapshot() == before
    shown = [m.text for m in result.messages if isinstance(m, ToolResultMessage)]
    assert shown[0].startswith("[dry run] Would: Order O-1001 cancelled")
    assert shown[1].startswith("[dry run] Would: Email to ada@example.com sent")
    journal = RollbackJournal()
    live = Agent(model(), tools=domain.tools(), governance=Governance(rollbacks=journal))
    await live.run("cancel O-1001")
    assert domain.state["orders"]["O-1001"]["status"] == "cancelled"
    assert len(domain.state["outbox"]) == 1
    assert len(journal) == 1  # the email cannot be undone; the cancellation can
    await journal.roll_back()
    assert domain.state["orders"] == before["orders"]
    assert domain.state["products"] == before["products"]


# ── faults ───────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("task_id", IDS)
def test_faults_are_deterministic_per_task_and_seed(task_id: str) -> None:
    task = BY_ID[task_id]
    for seed in range(4):
        assert noisy_actions(task, seed) == noisy_actions(task, seed)
    assert noisy_actions(task, 0, p=0.0) == (oracle_actions(task), [])


def test_faults_are_planted_at_about_the_rate_asked_and_of_every_kind() -> None:
    steps = sum(len(task.steps) for task in TASKS) * 4
    planted = [f for task in TASKS for seed in range(4) for f in noisy_actions(task, seed)[1]]
    assert {f.kind for f in planted} == set(KINDS)
    # Faults that end an answer (false done, stall) leave later steps undrawn: fewer than p.
    assert 0.1 * steps <= len(planted) <= 0.3 * steps
    other_seeds = {tuple(noisy_actions(task, 7)[1]) for task in TASKS}
    assert other_seeds != {tuple(noisy_actions(task, 0)[1]) for task in TASKS}


def test_each_fault_kind_changes_the_stream_as_described() -> None:
    task = BY_ID["address_change"]  # read, write, write
    oracle = oracle_actions(task)
    assert isinstance(oracle[-1], Say)
    assert oracle[-1].text == "Done."
    kinds_seen: set[str] = set()
    for seed in range(200):
        actions, faults = noisy_actions(task, seed, p=0.5)
        if len(faults) != 1:
            continue
        fault = faults[0]
        kinds_seen.add(fault.kind)
        calls = [a for a in actions if isinstance(a, CallTool)]
        if fault.kind == "skipped_step":
            assert len(calls) == len(task.steps) - 1
        elif fault.kind == "false_done":
            assert len(calls) == fault.position
            assert actions[-1] == Say("Done: everything you asked for is finished.")
        elif fault.kind == "stall":
            assert isinstance(actions[-1], Stall)
            assert EFFECTS[actions[-1].tool] == "read"
        else:
            wrong = calls[fault.position]
            assert wrong.arguments != task.steps[fault.position].arguments
    assert kinds_seen == set(KINDS)


def test_each_answer_draws_afresh_from_the_seeded_stream() -> None:
    steps = BY_ID["address_change"].steps
    first, second = Faults("t", 1, p=0.5), Faults("t", 1, p=0.5)
    answers = [first.perturb(steps) for _ in range(5)]
    assert answers == [second.perturb(steps) for _ in range(5)]
    assert len({repr(a) for a in answers}) > 1
    assert first.planted == [f for a in answers for f in a.faults]


def test_a_stall_is_endless() -> None:
    steps = BY_ID["address_change"].steps
    faults = Faults("t", 0, p=1.0)
    while (first := faults.perturb(steps)).ending != "stall":
        pass
    for _ in range(3):
        again = faults.perturb(steps)
        assert again.ending == "stall"
        assert again.stall == first.stall
        assert again.steps == []


# ── the baseline ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("task_id", IDS)
async def test_the_baseline_without_faults_passes_every_task(task_id: str) -> None:
    run = await run_task(BY_ID[task_id])
    assert run.problems == []
    assert run.passed
    assert run.unapproved_external_writes == 0
    assert run.rejected_approvals == 0
    assert run.questions_answered == len(BY_ID[task_id].clarifications)


async def test_the_baseline_with_faults_is_the_same_for_the_same_seed() -> None:
    task = BY_ID["address_change"]
    runs = [await run_task(task, seed) for seed in (3, 3)]
    assert runs[0].to_data() == runs[1].to_data()


async def test_a_stall_ends_the_plain_agents_run_without_reaching_the_end_state() -> None:
    task = BY_ID["address_change"]
    seed = next(s for s in range(200) if any(f.kind == "stall" for f in noisy_actions(task, s)[1]))
    run = await run_task(task, seed)
    assert not run.passed
    assert run.stopped_by is not None  # the repetition guard or the turn limit


def test_pass_hat_k_counts_tasks_that_pass_on_every_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [TaskRun("a", 0, True, []), TaskRun("a", 1, False, ["x"]), TaskRun("b", 0, True, [])]
    runs.append(TaskRun("b", 1, True, []))
    assert pass_hat_k(runs) == 0.5
    assert main(["--tasks", "cancel_order,refund_one_mouse", "--seeds", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tasks"] == 2
    assert report["oracle"]["pass_rate"] == 1.0
    assert "pass^2" in report["noisy"]
    assert report["unapproved_external_writes"] == 0
